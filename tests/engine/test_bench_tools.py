"""The benchmarks' shared pieces that run without a GPU: the nvidia-smi reader (through a stand-in
nvidia-smi on PATH) and the driver bench's answer on a machine with no CUDA driver."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kernels.engine.gpu.device import clocks_line, smi_query


def fake_smi(folder: Path, output: str) -> None:
    script = folder / "nvidia-smi"
    script.write_text(f"#!/bin/sh\nprintf '%s' '{output}'\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_smi_query_reads_one_row_per_gpu_in_the_order_asked_and_commas_in_the_last_field(tmp_path, monkeypatch):
    fake_smi(tmp_path, "0, 1980, 1980, NVIDIA H100 80GB HBM3\n1, 345, 1980, NVIDIA H100, PCIe, 80GB\n")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    rows = smi_query(("index", "clocks.sm", "clocks.max.sm", "name"))
    assert rows == [{"index": "0", "name": "NVIDIA H100 80GB HBM3", "clocks.sm": "1980", "clocks.max.sm": "1980"},
                    {"index": "1", "name": "NVIDIA H100, PCIe, 80GB", "clocks.sm": "345", "clocks.max.sm": "1980"}]
    assert clocks_line() == ("0, NVIDIA H100 80GB HBM3, 1980 MHz (max 1980 MHz); "
                             "1, NVIDIA H100, PCIe, 80GB, 345 MHz (max 1980 MHz)")


def test_smi_query_skips_a_row_of_another_shape_and_is_empty_without_nvidia_smi(tmp_path, monkeypatch):
    fake_smi(tmp_path, "0, 1980\nNo devices were found\n")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert smi_query(("index", "clocks.sm")) == [{"index": "0", "clocks.sm": "1980"}]
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    assert smi_query(("index", "clocks.sm")) == []
    assert clocks_line() == "nvidia-smi not found"


@pytest.mark.skipif(os.path.exists("/dev/nvidiactl"), reason="this machine has a GPU driver")
def test_the_driver_bench_says_why_it_cannot_measure_where_there_is_no_driver():
    out = subprocess.run([sys.executable, "-m", "kernels.engine.gpu.bench_driver", "--gpus", "1", "--per-gpu", "1"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "GPU 0: the sandboxed fresh process failed (rc 3)" in out.stderr
    assert "libcuda.so.1" in out.stderr
    assert "Traceback" not in out.stderr


def test_the_driver_bench_refuses_a_count_below_one():
    out = subprocess.run([sys.executable, "-m", "kernels.engine.gpu.bench_driver", "--per-gpu", "0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--gpus and --per-gpu must be at least 1" in out.stderr


def test_a_benchmark_can_bind_each_sandboxed_worker_to_its_own_gpu(monkeypatch):
    from kernels.engine.gpu import sandbox

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert "CUDA_VISIBLE_DEVICES" not in sandbox.worker_env(sandboxed=True)
    assert sandbox.worker_env(sandboxed=True, gpu="2")["CUDA_VISIBLE_DEVICES"] == "2"
    args = sandbox.bwrap_args(gpu="3")
    assert any(args[i:i + 3] == ["--setenv", "CUDA_VISIBLE_DEVICES", "3"] for i in range(len(args)))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")  # a worker bound with --gpu 1 keeps its own
    assert sandbox.worker_env(sandboxed=True)["CUDA_VISIBLE_DEVICES"] == "1"
