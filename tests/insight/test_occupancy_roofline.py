"""Occupancy against a table of cases worked by hand from cuda_occupancy.h's arithmetic (and
checked against cudaOccupancyMaxActiveBlocksPerMultiprocessor by tests/insight/test_gpu.py),
and roofline placement."""

from __future__ import annotations

import json

import pytest

from kernels.engine import load_exercise
from kernels.engine.insight import occupancy as occ
from kernels.engine.insight import roofline

# threads, registers, shared bytes (static + dynamic) -> blocks/SM, limited by (sm_90)
CASES = [
    (1024, 32, 0, 2, {"registers", "warps"}),  # 64 warps: full
    (256, 64, 0, 4, {"registers"}),  # 2048 regs/warp -> 8 warps per sub-partition -> 32 warps
    (128, 255, 0, 2, {"registers"}),  # 8192 regs/warp -> 2 warps per sub-partition
    (256, 16, 48 * 1024, 4, {"shared"}),  # (49152 + 1024 reserved) -> 233472 // 50176 = 4
    (1024, 38, 8192, 1, {"registers"}),  # 38*32 -> 1280 regs/warp: 12 warps/sub-partition -> 48 warps
    (32, 16, 0, 32, {"blocks"}),  # 32 one-warp blocks: the block limit
    (96, 40, 0, 16, {"registers"}),  # 1280 regs/warp -> 48 warps; 3 warps/block -> 16 blocks
    (64, 32, 100 * 1024, 2, {"shared"}),  # 103424 -> 2 fit in 228 KiB
    (1024, 65, 0, 0, {"registers"}),  # 65*32 -> 2304 regs/warp * 32 warps > 65536 per block
    (512, 0, 0, 4, {"warps"}),
    (256, 32, 227 * 1024 + 1, 0, {"shared"}),  # over the per-block limit
]


@pytest.mark.parametrize("threads, regs, smem, blocks, limited", CASES)
def test_occupancy_table(threads, regs, smem, blocks, limited):
    o = occ.occupancy(threads, regs, smem, "sm_90")
    assert o.blocks_per_sm == blocks
    assert set(o.limited_by) == limited
    assert o.warps_per_sm == blocks * -(-threads // 32)
    assert o.occupancy == pytest.approx(o.warps_per_sm / 64)


def test_next_step_registers():
    o = occ.occupancy(1024, 38, 8192)
    assert o.next_step == {"resource": "registers", "change": 6, "blocks_per_sm": 2}
    again = occ.occupancy(1024, 38 - 6, 8192)
    assert again.blocks_per_sm == 2


def test_next_step_shared():
    o = occ.occupancy(256, 16, 48 * 1024)
    step = o.next_step
    assert step["resource"] == "shared" and step["blocks_per_sm"] == 5
    assert occ.occupancy(256, 16, 48 * 1024 - step["change"]).blocks_per_sm == 5
    assert occ.occupancy(256, 16, 48 * 1024 - step["change"] + 128).blocks_per_sm == 4


def test_full_occupancy_has_no_next_step():
    assert occ.occupancy(1024, 32, 0).next_step is None


def test_unknown_arch_is_none():
    assert occ.occupancy(256, 32, 0, "sm_70") is None


def test_every_exercise_has_roofline_formulas():
    for ex_id in ("gemm", "gemm_fast", "col_sum", "row_sum", "transpose"):
        ex = load_exercise(ex_id)
        f = roofline.formulas(ex)
        assert f is not None
        flops, nbytes = roofline.amounts(ex, ex.timing_sizes[-1])
        assert nbytes > 0 and flops >= 0


CEIL = {"gpu": {"name": "NVIDIA H100 80GB HBM3"}, "dram_gbs": 3000.0, "fp32_tflops": 50.0,
        "tensor_tflops": 700.0, "file": "x-ceilings.json"}


def timings(size, **ms):
    return [{"kernel": k, "size": size, "median_ms": v} for k, v in ms.items()]


def test_gemm_is_compute_bound_and_placed_by_rate():
    ex = load_exercise("gemm")
    size = {"M": 2048, "N": 2048, "K": 2048}
    out = roofline.place(ex, timings(size, learner=1.0, naive=2.5, tiled=1.8), "NVIDIA H100 80GB HBM3", CEIL)
    flops = 2 * 2048 ** 3
    nbytes = 4 * 3 * 2048 ** 2
    assert out["intensity"] == pytest.approx(flops / nbytes, rel=1e-6)
    assert out["bound"] == "compute" and out["attainable_gflops"] == pytest.approx(50000)
    mine = next(p for p in out["points"] if p["kernel"] == "learner")
    assert mine["gflops"] == pytest.approx(flops / 1e-3 / 1e9, rel=1e-4)
    assert out["fraction"] == pytest.approx(mine["gflops"] / 50000, rel=1e-3)
    assert [p["kernel"] for p in out["points"]] == ["learner", "naive", "tiled"]


def test_column_sum_is_memory_bound():
    ex = load_exercise("col_sum")
    size = dict(ex.timing_sizes[-1])
    out = roofline.place(ex, timings(size, learner=0.2), "NVIDIA H100 80GB HBM3", CEIL)
    assert out["bound"] == "memory"
    assert out["attainable_gflops"] == pytest.approx(out["intensity"] * 3000, rel=1e-4)


def test_transpose_has_only_a_bandwidth_roof():
    ex = load_exercise("transpose")
    size = dict(ex.timing_sizes[-1])
    out = roofline.place(ex, timings(size, learner=0.5), "NVIDIA H100 80GB HBM3", CEIL)
    mine = out["points"][0]
    assert out["intensity"] == 0 and out["bound"] == "memory"
    assert out["fraction"] == pytest.approx(mine["gbs"] / 3000, rel=1e-3)


def test_no_ceilings_for_this_gpu_still_gives_intensity(tmp_path):
    ex = load_exercise("gemm")
    assert roofline.ceilings_for("Some Other GPU", tmp_path) is None
    out = roofline.place(ex, [], "Some Other GPU", None)
    assert out["intensity"] > 0 and out["ceilings"] is None and out["points"] == [] and out["fraction"] is None


def test_ceilings_file_is_found_by_gpu_name(tmp_path):
    (tmp_path / "nvidia-h100-80gb-hbm3-2026-11-25-ceilings.json").write_text(json.dumps(CEIL | {"file": None}))
    (tmp_path / "broken-ceilings.json").write_text("{not json")
    found = roofline.ceilings_for("NVIDIA H100 80GB HBM3", tmp_path)
    assert found["dram_gbs"] == 3000.0 and found["file"].endswith("-ceilings.json")
    assert roofline.ceilings_for(None, tmp_path) is None


def test_committed_ceilings_files_are_complete():
    files = sorted(roofline.RESULTS_DIR.glob(roofline.CEILINGS_GLOB))
    for p in files:
        data = json.loads(p.read_text())
        assert data["gpu"]["name"] and data["dram_gbs"] > 0 and data["fp32_tflops"] > 0, p
