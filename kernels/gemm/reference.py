"""gemm: C = A @ B, float32, row-major; A is M x K, B is K x N, C is M x N (numpy only).

The maths (inputs, float64 reference, error bound, first mismatch) is kernels/engine/checking.py's,
shared with gemm_fast; what is this exercise's own are the bound's parameters below.
"""

from functools import partial

from kernels.engine.checking import check_matmul, matmul_inputs, matmul_reference

DEFAULT_C = 2.0  # lambda in the probabilistic bound; spec.yaml's tolerance.c must match
SAMPLE_ROWS = 8  # rows checked on a timed run (plus the last row): a replayed or lazy
# answer is wrong almost everywhere, and the float64 check must stay cheap at 4096

generate_inputs = matmul_inputs
reference = matmul_reference
# check(got, inputs, sizes, *, tolerance=None, sample=None) -> None | first mismatch
check = partial(check_matmul, default_c=DEFAULT_C, sample_rows=SAMPLE_ROWS)
