"""row_sum: out[i] = sum_j X[i, j] for a row-major rows x cols float32 matrix (numpy only)."""

import numpy as np

from kernels.engine.checking import check_axis_sums, tolerance_c, uniform_f32

DEFAULT_C = 2.0  # lambda in the probabilistic bound; spec.yaml's tolerance.c must match
SAMPLE_ROWS = 255  # rows re-checked on a timed run (plus the last one)


def generate_inputs(sizes, rng):
    return {"X": uniform_f32(rng, (sizes["rows"], sizes["cols"]))}


def reference(inputs, sizes):
    return inputs["X"].astype(np.float64).sum(axis=1)


def check(got, inputs, sizes, *, tolerance=None, sample=None):
    """None when every row sum is within c * sqrt(cols) * u * sum|X| + u * |ref|, else the
    first mismatch. sample: a numpy Generator to check only some rows (timed runs)."""
    return check_axis_sums(got, inputs["X"], axis=1, c=tolerance_c(tolerance, DEFAULT_C),
                           sample=sample, sample_count=SAMPLE_ROWS)
