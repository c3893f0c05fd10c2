"""transpose: out[j, i] = in[i, j]; in is rows x cols, out is cols x rows (numpy only)."""
from __future__ import annotations

from typing import Any

import numpy as np

from kernels.engine.checking import Mismatch, first_mismatch, sample_indices, uniform_f32

SAMPLE_ROWS = 255  # output rows re-checked on a timed run (plus the last one)


def generate_inputs(sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"in": uniform_f32(rng, (sizes["rows"], sizes["cols"]))}


def reference(inputs: dict[str, np.ndarray], sizes: dict[str, int]) -> np.ndarray:
    return inputs["in"].astype(np.float64).T


def check(got: Any, inputs: dict[str, np.ndarray], sizes: dict[str, int], *, tolerance: Any = None,
          sample: np.random.Generator | None = None) -> Mismatch | None:
    """Exact comparison (a transpose moves bits). sample: check a subset of output rows."""
    src = inputs["in"]
    rows, cols = src.shape
    got = np.asarray(got).reshape(cols, rows)
    idx = sample_indices(cols, sample, SAMPLE_ROWS)
    expected = src[:, idx].T  # output rows idx
    g = got[idx]
    # bitwise: NaN != NaN, and -0.0 vs 0.0 cannot occur for values copied unchanged
    bad = g.view(np.uint32) != np.ascontiguousarray(expected).view(np.uint32)
    return first_mismatch(bad, g, expected, lambda pos: [idx[pos[0]], pos[1]])
