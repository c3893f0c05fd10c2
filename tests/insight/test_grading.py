"""insight.grading.begin/complete, the two calls grade() makes around the GPU phases (CPU: a real
compile and disassembly; the Result stands in for what the GPU runner returns)."""
from __future__ import annotations

from kernels.engine import load_exercise
from kernels.engine.insight import grading
from kernels.engine.launch import validate_launch
from kernels.engine.result import GpuInfo, Message, Result, Timing, Verdict, json_schema
from tests.engine.schema_check import errors

from .test_sass import TILED


def run(compile_gemm, launch, verdict=Verdict.PASSED, *, gpu_used=True):
    ex = load_exercise("gemm")
    plan = validate_launch(launch, ex)
    c = compile_gemm(TILED)
    job = grading.begin(ex, c, plan, TILED)
    size = {"M": 2048, "N": 2048, "K": 2048}
    result = Result(verdict=verdict, message=Message(verdict.value), gpu=GpuInfo(name="NVIDIA H200"),
                    timings=[Timing("learner", size, 1.8, 0.01), Timing("naive", size, 2.6, 0.01)])
    return grading.complete(job, ex, result, c, plan, gpu_used=gpu_used), result


def test_complete_section(compile_gemm):
    ins, result = run(compile_gemm, {"block": [32, 32, 1], "tile": [32, 32], "smem": 0})
    assert ins["sass"]["available"] and ins["occupancy"]["threads_per_block"] == 1024
    assert [p["kernel"] for p in ins["roofline"]["points"]] == ["learner", "naive"]
    assert ins["counters"] is None and "_facts" not in ins
    result.insight = ins
    assert errors(result.to_dict(), json_schema()) == []


def test_profile_without_a_gpu_run_says_so(compile_gemm):
    launch = {"block": [32, 32, 1], "tile": [32, 32], "smem": 0, "profile": True}
    ins, _ = run(compile_gemm, launch, gpu_used=False)
    assert ins["counters"] == {"available": False, "reason": "NCU_NOT_RUN"}
    ins, _ = run(compile_gemm, launch, Verdict.WRONG_ANSWER)
    assert ins["counters"]["reason"] == "NCU_NOT_RUN"


def test_dynamic_shared_memory_counts_for_occupancy(compile_gemm):
    ins, _ = run(compile_gemm, {"block": [32, 32, 1], "tile": [32, 32], "smem": 100 * 1024})
    assert ins["occupancy"]["shared_bytes"] >= 100 * 1024 and ins["occupancy"]["blocks_per_sm"] <= 2


def test_a_failed_start_leaves_the_section_out():
    assert grading.begin(None, None, None, "") is None
    assert grading.complete(None, None, None, None, None, gpu_used=True) is None
