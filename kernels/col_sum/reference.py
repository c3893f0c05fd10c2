"""col_sum: out[j] = sum_i X[i, j] for a row-major rows x cols float32 matrix (numpy only).

Inputs, float64 reference and check() are kernels/engine/checking.py's axis sums (axis 0);
each column sum must be within c * sqrt(n) * u * sum|x| + u * |ref| (spec.yaml says why).
"""

from functools import partial

from kernels.engine.checking import axis_sum_inputs, axis_sum_reference, check_axis_sums

DEFAULT_C = 2.0  # lambda in the probabilistic bound; spec.yaml's tolerance.c must match
SAMPLE_COLS = 255  # columns re-checked on a timed run (plus the last one)

generate_inputs = axis_sum_inputs
reference = partial(axis_sum_reference, axis=0)
# check(got, inputs, sizes, *, tolerance=None, sample=None) -> None | first mismatch
check = partial(check_axis_sums, axis=0, default_c=DEFAULT_C, sample_count=SAMPLE_COLS)
