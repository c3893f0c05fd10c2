"""Insight on a real GPU: our occupancy formula against CUDA's occupancy API, Nsight Compute
counters in the GPU sandbox ordered as the lessons say, LDG.E.128 in a float4 solution, and the
ceilings benchmark writing its file. Skipped without a GPU (and the counter tests without ncu)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kernels.engine import load_exercise
from kernels.engine.insight import counters, disasm, occupancy, sass

from .test_hints import HEAVY

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]


def _gpu():
    from kernels.engine.gpu import gpu_available

    if not gpu_available():
        pytest.skip("no GPU here")


@pytest.fixture(scope="module")
def cupy_on_gpu():
    _gpu()
    import cupy

    return cupy


UNCOALESCED = """extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    // threadIdx.x runs down a COLUMN of C: neighbouring threads read rows K floats apart
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}
"""

DYNAMIC = """extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    extern __shared__ float s[];
    s[threadIdx.x] = A[threadIdx.x];
    __syncthreads();
    C[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
"""


def test_occupancy_formula_matches_cuda_api(cupy_on_gpu, compile_gemm):
    cupy = cupy_on_gpu
    drv = cupy.cuda.driver
    sources = {"naive": (ROOT / "kernels/gemm/naive.cu").read_text(), "tiled": (ROOT / "kernels/gemm/tiled.cu").read_text(),
               "regtile": (ROOT / "kernels/gemm_fast/solutions/correct/regtile_128x128.cu").read_text(),
               "heavy": HEAVY, "dynamic": DYNAMIC}
    checked = []
    for name, src in sources.items():
        c = compile_gemm(src)
        module = cupy.cuda.function.Module()
        module.load(disasm.complete_elf(c.cubin))
        fn = module.get_function(c.kernel_name)
        regs = drv.funcGetAttribute(drv.CU_FUNC_ATTRIBUTE_NUM_REGS, fn.ptr)
        static = drv.funcGetAttribute(drv.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn.ptr)
        assert regs == c.resources["registers"] and static == c.resources["shared_bytes"]
        for threads in (32, 64, 96, 128, 256, 512, 1024):
            for dyn in ((0, 4096, 40 * 1024) if name in ("dynamic", "naive") else (0,)):
                api = drv.occupancyMaxActiveBlocksPerMultiprocessor(fn.ptr, threads, dyn)
                ours = occupancy.occupancy(threads, regs, static + dyn, "sm_90").blocks_per_sm
                checked.append((name, threads, dyn, regs, api, ours))
                assert ours == api, (name, threads, dyn, regs, api, ours)
    print("occupancy cases checked against the CUDA API:", len(checked))
    for row in checked[::7]:
        print("  {:<8} threads={:>4} dyn={:>6} regs={:>3} api={:>2} ours={:>2}".format(*row))


def test_float4_solution_has_128_bit_global_loads(compile_gemm):
    _gpu()
    src = (ROOT / "kernels/gemm_fast/solutions/correct/regtile_128x128.cu").read_text()
    c = compile_gemm(src)
    d = disasm.disassemble(c.cubin, sandboxed=c.sandboxed)
    assert d.ok, d.reason
    widths = sass.widths(sass.parse_sass(d.text).instructions, "global_load")
    print("regtile_128x128 global load widths:", widths, d.tool)
    assert widths.get("128", 0) > 0


def _profile(compile_gemm, source, launch):
    from kernels.engine.launch import validate_launch

    ex = load_exercise("gemm")
    c = compile_gemm(source)
    plan = validate_launch(launch, ex)
    got = counters.collect(ex, c.cubin, c.kernel_name, plan, {"M": 1024, "N": 1024, "K": 1024}, keep_output=True)
    d = disasm.disassemble(c.cubin, sandboxed=c.sandboxed)
    got["widths"] = sass.widths(sass.parse_sass(d.text).instructions, "global_load")
    return got


@pytest.fixture(scope="module")
def profiles(compile_gemm):
    _gpu()
    if counters.find_ncu() is None:
        pytest.skip("Nsight Compute (ncu) is not installed here")
    block = {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
    out = {
        "naive": _profile(compile_gemm, (ROOT / "kernels/gemm/naive.cu").read_text(), block),
        "tiled": _profile(compile_gemm, (ROOT / "kernels/gemm/tiled.cu").read_text(), block),
        "uncoalesced": _profile(compile_gemm, UNCOALESCED, block),
    }
    keep = os.environ.get("INSIGHT_ARTIFACTS")  # where a GPU run leaves ncu's own output
    for name, p in out.items():
        text = p.pop("_output", "")
        if keep:
            Path(keep, f"ncu-{name}.txt").write_text(text)
    print(json.dumps(out, indent=1))
    return out


def test_counters_are_collected_in_the_sandbox(profiles):
    for name, p in profiles.items():
        assert p["available"], (name, p)
        m = p["metrics"]
        assert m["sectors_per_request"] and m["dram_bytes_read"] > 0 and 0 < m["achieved_occupancy"] <= 1


def test_counters_order_as_the_lessons_say(profiles):
    naive, tiled, bad = (profiles[k] for k in ("naive", "tiled", "uncoalesced"))
    raw = lambda p, k: p["raw"][k]  # noqa: E731
    sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
    # lesson 04: tiling reuses each loaded value from shared memory: far fewer global load sectors
    assert raw(naive, sectors) > 8 * raw(tiled, sectors)
    # lesson 01: threadIdx.x down a column makes every thread of a warp read its own sector
    assert bad["metrics"]["sectors_per_request"] > 8
    assert bad["metrics"]["sectors_per_request"] > naive["metrics"]["sectors_per_request"]
    assert bad["metrics"]["sectors_per_request"] > tiled["metrics"]["sectors_per_request"]
    # and only the uncoalesced one gets the coalescing hint
    from kernels.engine.insight import hints

    fires = {k: "uncoalesced_loads" in hints.hint_ids(hints.evaluate(hints.facts(
        exercise="gemm", counters=p["metrics"], global_load_widths=p["widths"]))) for k, p in profiles.items()}
    assert fires == {"naive": False, "tiled": False, "uncoalesced": True}


def test_ceilings_benchmark_writes_its_file(tmp_path):
    _gpu()
    from kernels.engine.insight import bench_ceilings, roofline

    assert bench_ceilings.main(["--out", str(tmp_path), "--repeats", "5"]) == 0
    files = list(tmp_path.glob("*-ceilings.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert data["dram_gbs"] > 100 and data["fp32_tflops"] > 1 and data["tensor_tflops"] > data["fp32_tflops"]
    found = roofline.ceilings_for(data["gpu"]["name"], tmp_path)
    assert found and found["dram_gbs"] == data["dram_gbs"]


def test_grade_carries_insight_on_the_gpu():
    """The whole path: grade() on the GPU fills the insight section within the schema; the
    float4 solution's SASS has 128-bit loads; with "profile": true the counters are there."""
    _gpu()
    from kernels.engine import grade
    from kernels.engine.result import json_schema
    from tests.engine.schema_check import errors

    src = (ROOT / "kernels/gemm_fast/solutions/correct/regtile_128x128.cu").read_text()
    launch = {"block": [16, 16, 1], "tile": [128, 128], "smem": 0}
    import re

    m = re.search(r"launch:\s*(\{.*\})", src)
    if m:
        launch = json.loads(m.group(1))
    plain = grade("gemm_fast", src, launch)
    assert plain.passed, plain.message
    ins = plain.insight
    assert ins and ins["version"] == "insight/1" and ins["sass"]["available"], ins and ins["sass"]
    assert ins["sass"]["global_load_widths"].get("128", 0) > 0
    assert ins["roofline"]["points"] and ins["occupancy"]["blocks_per_sm"] >= 1 and ins["counters"] is None
    assert errors(plain.to_dict(), json_schema()) == []
    print("insight ms (static part, overlapped with the GPU phases):", ins["ms"], "nvdisasm ms:", ins["sass"]["ms"])
    print("phases:", [(p.name, p.ms) for p in plain.phases])
    print("roofline:", json.dumps(ins["roofline"]))
    if counters.find_ncu() is None:
        return
    profiled = grade("gemm_fast", src, {**launch, "profile": True})
    assert profiled.passed
    c = profiled.insight["counters"]
    print("profiled counters:", json.dumps(c))
    assert c["available"], c
    assert errors(profiled.to_dict(), json_schema()) == []
