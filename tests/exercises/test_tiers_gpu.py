"""Every speed tier of every exercise is reachable: a committed correct solution meets it when
graded through the engine's grade() on the GPU. Skipped without a GPU.

Run on the GPU machine with ``--noconftest`` (the top-level conftest imports the web app):
    python -m pytest -q --noconftest -m gpu tests/exercises/test_tiers_gpu.py
"""

from __future__ import annotations

import json
import re

import pytest

from kernels.engine import load_exercise

from .helpers import EXERCISES, KERNELS

LAUNCH_RE = re.compile(r"^//\s*launch:\s*(\{.*\})", re.M)

# The committed solution that proves each exercise's tiers (all of them, in one grading), as
# (exercise folder, file). gemm and gemm_fast share the kernel contract, so gemm's cuBLAS-50 %
# tier is proven by gemm_fast's 128x128 kernel (gemm's own regtile_64x64 reaches 0.35 of cuBLAS
# on an H100: kernels/results/logs/h100-2026-11-26-tiers-all-solutions.log; the proofs themselves pass on
# an H100 in kernels/results/logs/h100-2026-11-26-tiers-final.log and on an H200 in
# kernels/results/logs/h200-2026-11-26-tiers.log).
# hgemm's 25 %-of-cuBLAS-HGEMM tier is proven by its own two-stage cp.async WMMA kernel.
PROOF = {"col_sum": ("col_sum", "float4_columns.cu"), "row_sum": ("row_sum", "float4_warp_per_row.cu"),
         "transpose": ("transpose", "tile64.cu"), "gemm": ("gemm_fast", "regtile_128x128.cu"),
         "gemm_fast": ("gemm_fast", "regtile_128x128.cu"),
         "hgemm": ("hgemm", "wmma_128x128_cp_async.cu")}


def _have_gpu() -> bool:
    try:
        from kernels.engine.gpu import gpu_available

        return gpu_available()
    except Exception:
        return False


needs_gpu = [pytest.mark.gpu, pytest.mark.skipif(not _have_gpu(), reason="no CUDA GPU here")]


def test_every_exercise_has_a_proof_solution():
    assert set(PROOF) == set(EXERCISES)
    for folder, name in PROOF.values():
        assert (KERNELS / folder / "solutions" / "correct" / name).is_file()


@needs_gpu[0]
@needs_gpu[1]
@pytest.mark.parametrize("ex_id", EXERCISES)
def test_a_committed_solution_meets_every_tier(ex_id):
    from kernels.engine import grade

    ex = load_exercise(ex_id)
    folder, name = PROOF[ex_id]
    path = KERNELS / folder / "solutions" / "correct" / name
    text = path.read_text(encoding="utf-8")
    m = LAUNCH_RE.search(text)
    launch = json.loads(m.group(1)) if m else ex.launch_defaults.as_request()
    res = grade(ex_id, text, launch)
    assert res.verdict.name == "PASSED", res.message
    report = {t.id: t.met for t in res.tiers}
    speedups = [(s.against, dict(s.size), round(s.ci_low, 3), round(s.value, 3)) for s in res.speedups]
    print(f"\nTIERS {ex_id} {name}: {report} speedups (against, size, ci_low, value): {speedups}")
    missed = [t.id for t in res.tiers if not t.met]
    assert not missed, f"{ex_id}: {name} misses tiers {missed}; speedups {speedups}"
