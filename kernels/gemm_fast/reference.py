"""gemm_fast: C = A @ B, float32, row-major; A is M x K, B is K x N, C is M x N (numpy only).

The same contract as kernels/gemm/reference.py, kept as its own copy (exercises are self-contained).
"""

import numpy as np

U32 = 2.0 ** -24  # unit roundoff of float32
DEFAULT_C = 2.0  # lambda in the probabilistic bound; spec.yaml's tolerance.c must match
SAMPLE_ROWS = 8  # rows checked on a timed run (plus the last row): a replayed or lazy
# answer is wrong almost everywhere, and the float64 check must stay cheap at 4096


def _uniform(rng, shape):
    # Uniform in [-1, 1), drawn directly in float32 (fast at 4096 x 4096): zero mean, never all
    # zeros, and no structure a kernel could exploit.
    return rng.random(shape, dtype=np.float32) * np.float32(2.0) - np.float32(1.0)


def generate_inputs(sizes, rng):
    M, N, K = sizes["M"], sizes["N"], sizes["K"]
    return {
        "A": _uniform(rng, (M, K)),
        "B": _uniform(rng, (K, N)),
    }


def reference(inputs, sizes):
    return inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)


def check(got, inputs, sizes, *, tolerance=None, sample=None):
    """None when every element is within tolerance, else the first mismatch.

    tol_ij = c * sqrt(K) * u * (|A| @ |B|)_ij + u * |ref_ij|   (see spec.yaml for why).
    sample: a numpy Generator to check a few random rows (plus the last) on timed runs.
    """
    c = float((tolerance or {}).get("c", DEFAULT_C))
    A, B = inputs["A"], inputs["B"]
    M, K = A.shape
    N = B.shape[1]
    got = np.asarray(got).reshape(M, N)
    rows = np.arange(M)
    if sample is not None and M > SAMPLE_ROWS + 1:
        rows = np.unique(np.concatenate([sample.choice(M, SAMPLE_ROWS, replace=False), [M - 1]]))
    A64 = A[rows].astype(np.float64)
    B64 = B.astype(np.float64)
    ref = A64 @ B64
    tol = c * np.sqrt(K) * U32 * (np.abs(A64) @ np.abs(B64)) + U32 * np.abs(ref)
    g = got[rows].astype(np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(g) | ~(np.abs(g - ref) <= tol)
    if not bad.any():
        return None
    r, col = (int(v) for v in np.argwhere(bad)[0])
    return {"index": [int(rows[r]), col], "got": float(g[r, col]), "expected": float(ref[r, col])}
