"""col_sum: out[j] = sum_i X[i, j] for a row-major rows x cols float32 matrix (numpy only)."""

import numpy as np

from kernels.engine.checking import check_axis_sums, tolerance_c, uniform_f32

DEFAULT_C = 2.0  # lambda in the probabilistic bound; spec.yaml's tolerance.c must match
SAMPLE_COLS = 255  # columns re-checked on a timed run (plus the last one)


def generate_inputs(sizes, rng):
    return {"X": uniform_f32(rng, (sizes["rows"], sizes["cols"]))}


def reference(inputs, sizes):
    return inputs["X"].astype(np.float64).sum(axis=0)


def check(got, inputs, sizes, *, tolerance=None, sample=None):
    """None when every column sum is within c * sqrt(rows) * u * sum|X| + u * |ref|, else the
    first mismatch. sample: a numpy Generator to check only some columns (timed runs)."""
    return check_axis_sums(got, inputs["X"], axis=0, c=tolerance_c(tolerance, DEFAULT_C),
                           sample=sample, sample_count=SAMPLE_COLS)
