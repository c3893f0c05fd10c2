"""gemm_fast: C = A @ B, float32, row-major; A is M x K, B is K x N, C is M x N (numpy only).

The same contract as gemm: both take their maths from kernels/engine/checking.py, so a fix to
one checker is a fix to both. Only the bound's parameters are set here.
"""

from functools import partial

from kernels.engine.checking import check_matmul, matmul_inputs, matmul_reference

DEFAULT_C = 2.0  # lambda in the probabilistic bound; spec.yaml's tolerance.c must match
SAMPLE_ROWS = 8  # rows re-checked on a timed run (plus the last row)

generate_inputs = matmul_inputs
reference = matmul_reference
check = partial(check_matmul, default_c=DEFAULT_C, sample_rows=SAMPLE_ROWS)
