"""row_sum: out[i] = sum_j X[i, j] for a row-major rows x cols float32 matrix (numpy only).

Inputs, float64 reference and check() are kernels/engine/checking.py's axis sums (axis 1);
each row sum must be within c * sqrt(n) * u * sum|x| + u * |ref| (spec.yaml says why).
"""

from functools import partial

from kernels.engine.checking import axis_sum_inputs, axis_sum_reference, check_axis_sums

DEFAULT_C = 2.0  # lambda in the probabilistic bound; spec.yaml's tolerance.c must match
SAMPLE_ROWS = 255  # rows re-checked on a timed run (plus the last one)

generate_inputs = axis_sum_inputs
reference = partial(axis_sum_reference, axis=1)
# check(got, inputs, sizes, *, tolerance=None, sample=None) -> None | first mismatch
check = partial(check_axis_sums, axis=1, default_c=DEFAULT_C, sample_count=SAMPLE_ROWS)
