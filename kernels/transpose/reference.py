"""transpose: out[j, i] = in[i, j]; in is rows x cols, out is cols x rows (numpy only)."""

import numpy as np


def _uniform(rng, shape):
    # Uniform in [-1, 1), drawn directly in float32 (fast at 4096 x 4096): zero mean, never all
    # zeros, and no structure a kernel could exploit.
    return rng.random(shape, dtype=np.float32) * np.float32(2.0) - np.float32(1.0)


def generate_inputs(sizes, rng):
    rows, cols = sizes["rows"], sizes["cols"]
    return {"in": _uniform(rng, (rows, cols))}


def reference(inputs, sizes):
    return inputs["in"].astype(np.float64).T


def check(got, inputs, sizes, *, tolerance=None, sample=None):
    """Exact comparison (a transpose moves bits). sample: check a subset of output rows."""
    src = inputs["in"]
    rows, cols = src.shape
    got = np.asarray(got).reshape(cols, rows)
    idx = np.arange(cols)
    if sample is not None and cols > 256:
        idx = np.unique(np.concatenate([sample.choice(cols, 255, replace=False), [cols - 1]]))
    expected = src[:, idx].T  # output rows idx
    g = got[idx]
    # bitwise: NaN != NaN, and -0.0 vs 0.0 cannot occur for values copied unchanged
    bad = g.view(np.uint32) != np.ascontiguousarray(expected).view(np.uint32)
    if not bad.any():
        return None
    r, c = (int(v) for v in np.argwhere(bad)[0])
    return {"index": [int(idx[r]), c], "got": float(g[r, c]), "expected": float(expected[r, c])}
