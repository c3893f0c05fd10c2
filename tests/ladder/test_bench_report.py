"""CPU tests for the benchmark's report: the results file follows contract D and the table is complete."""
from __future__ import annotations

import json

from kernels.ladder import bench

CHILDREN = [
    {"stem": "05_2d_register_tiling", "dtype": "f32", "title": "2D tiles", "registers": 128, "static_smem": 8192,
     "dynamic_smem": 0, "local_bytes": 0, "timing": "t", "odd": [{"M": 1, "N": 1, "K": 1, "ok": True, "summary": "ok"}],
     "sizes": [{"n": 1024, "ok": True, "summary": "ok", "worst_ratio": 0.01, "median_ms": 0.1, "spread_ms": 0.002,
                "baseline_ms": 0.08, "baseline_spread_ms": 0.001}]},
    {"stem": "12_cp_async_pipeline", "dtype": "f16", "title": "cp.async", "registers": 128, "static_smem": 0,
     "dynamic_smem": 75776, "local_bytes": 0, "timing": "t", "odd": [{"M": 1, "N": 1, "K": 1, "ok": True, "summary": "ok"}],
     "sizes": [{"n": 1024, "ok": False, "summary": "FAIL: error 3e+02× the bound", "worst_ratio": 300.0}]},
    {"stem": "13_wgmma", "error": "exit 1: cudaErrorIllegalAddress"},
]
INFO = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": 132, "clock_mhz": 1980,
        "driver": "580.159.04", "cuda_runtime": "13.2", "nvrtc": "13.0", "cupy": "14.2.0"}


def test_results_follow_contract_d():
    res = bench.build_results(INFO, CHILDREN, "2026-11-22")
    json.dumps(res)                                    # serialisable
    assert res["schema"] == "kernels-results/1" and res["kind"] == "ladder" and res["gpu"] == INFO
    kernels = [e["kernel"] for e in res["entries"]]
    assert kernels == ["05_2d_register_tiling", "cublas_sgemm"]   # failed and crashed rungs are not timed
    e = res["entries"][0]
    for key in ("exercise", "kernel", "label", "size", "median_ms", "spread_ms", "work_rate", "unit",
                "registers", "shared_bytes", "vs_baseline"):
        assert key in e
    assert e["size"] == {"M": 1024, "N": 1024, "K": 1024}
    assert abs(e["work_rate"] - 2 * 1024 ** 3 / 0.1e-3 / 1e12) < 0.01
    assert e["vs_baseline"] == 0.8


def test_table_reports_every_rung_including_failures():
    table = bench.format_table(INFO, CHILDREN)
    assert "NVIDIA H100 80GB HBM3" in table and "NVRTC 13.0" in table
    assert "05_2d_register_tiling" in table and "80.0%" in table
    assert "FAIL" in table and "ERROR" in table


def test_slug():
    assert bench.slug("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3"
