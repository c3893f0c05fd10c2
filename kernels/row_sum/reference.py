"""row_sum: out[i] = sum_j X[i, j] for a row-major rows x cols float32 matrix (numpy only)."""

import numpy as np

U32 = 2.0 ** -24  # unit roundoff of float32
DEFAULT_C = 2.0  # lambda in the probabilistic bound; spec.yaml's tolerance.c must match


def _uniform(rng, shape):
    # Uniform in [-1, 1), drawn directly in float32 (fast at 4096 x 4096): zero mean, never all
    # zeros, and no structure a kernel could exploit.
    return rng.random(shape, dtype=np.float32) * np.float32(2.0) - np.float32(1.0)


def generate_inputs(sizes, rng):
    rows, cols = sizes["rows"], sizes["cols"]
    return {"X": _uniform(rng, (rows, cols))}


def reference(inputs, sizes):
    return inputs["X"].astype(np.float64).sum(axis=1)


def check(got, inputs, sizes, *, tolerance=None, sample=None):
    """None when every element is within tolerance, else the first mismatch.

    sample: a numpy Generator to check a random subset of rows (plus the last) on timed runs.
    """
    c = float((tolerance or {}).get("c", DEFAULT_C))
    X = inputs["X"]
    rows, cols = X.shape
    got = np.asarray(got).reshape(rows)
    idx = np.arange(rows)
    if sample is not None and rows > 256:
        idx = np.unique(np.concatenate([sample.choice(rows, 255, replace=False), [rows - 1]]))
    Xs = X[idx].astype(np.float64)
    ref = Xs.sum(axis=1)
    tol = c * np.sqrt(cols) * U32 * np.abs(Xs).sum(axis=1) + U32 * np.abs(ref)
    g = got[idx].astype(np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(g) | ~(np.abs(g - ref) <= tol)
    if not bad.any():
        return None
    k = int(np.flatnonzero(bad)[0])
    return {"index": [int(idx[k])], "got": float(g[k]), "expected": float(ref[k])}
