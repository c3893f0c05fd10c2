"""One grading worker per GPU: the device a worker is bound to reaches its sandboxed GPU
workers, and each device has its own lock; the next job's worker is started (imports only, no
GPU) while the current job runs and creates its CUDA context after it. No GPU needed."""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from kernels.engine import load_exercise

FAKE = Path(__file__).with_name("fake_worker.py")


def test_the_bound_device_reaches_the_sandbox_and_has_its_own_lock(monkeypatch):
    from kernels.engine.gpu import sandbox
    from kernels.engine.gpu.gpu_lock import lock_path

    monkeypatch.delenv("MKC_GPU_LOCK", raising=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert "CUDA_VISIBLE_DEVICES" not in sandbox.worker_env(sandboxed=True)
    unbound = lock_path()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    args = sandbox.bwrap_args()
    assert ["--setenv", "CUDA_VISIBLE_DEVICES", "3"] == args[args.index("CUDA_VISIBLE_DEVICES") - 1:][:3]
    three = lock_path()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    assert len({unbound, three, lock_path()}) == 3  # GPUs 1 and 3 never wait on each other
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0; rm -rf /")
    assert "CUDA_VISIBLE_DEVICES" not in sandbox.worker_env(sandboxed=True)


def test_the_next_worker_loads_during_the_job_and_warms_after_it(monkeypatch, tmp_path):
    from kernels.engine.gpu import sandbox
    from kernels.engine.gpu.runner import GpuRunner, run_job
    from kernels.engine.gpu.worker_process import Limits

    started = []

    def command(opts, fd, sandboxed):
        started.append((time.monotonic(), bool(opts.get("deferred"))))
        return [sys.executable, str(FAKE), str(fd), "deferred_slow" if opts.get("deferred") else "slow"]

    monkeypatch.setattr(sandbox, "worker_command", command)
    monkeypatch.setattr(sandbox, "bwrap_binary", lambda: "/bin/true")
    monkeypatch.setenv("MKC_GPU_LOCK", str(tmp_path / "gpu.lock"))
    runner = GpuRunner(Limits(launch_s=5, job_s=10.0, start_s=20.0), keep_spare=True)
    ex = load_exercise("gemm")
    from kernels.engine.launch import validate_launch

    class Compiled:
        cubin, kernel_name, arch = b"\0" * 16, "gemm", "sm_90"

    plan = validate_launch(ex.launch_defaults.as_request(), ex)
    seen = {}

    def look():  # half-way through the first (1 s) job: the next worker exists, loaded, not warmed
        time.sleep(0.6)
        with runner._spare_mutex:
            spare = runner._spare
            seen["spare"] = spare is not None and spare.alive() and spare.ready is None
    try:
        watcher = threading.Thread(target=look)
        watcher.start()
        first = run_job(ex, Compiled(), plan, None, runner=runner)
        watcher.join()
        second = run_job(ex, Compiled(), plan, None, runner=runner)
    finally:
        runner.shutdown()
    assert first.verdict.value == second.verdict.value == "PASSED"
    assert seen["spare"], "no worker was loading while the first job ran"
    assert first.versions["gpu_cold_start"] == "True" and second.versions["gpu_cold_start"] == "False"
    assert [deferred for _, deferred in started][:2] == [False, True]


def test_real_sandboxed_worker_preloads_without_touching_the_gpu():
    """The true worker in bubblewrap, deferred: it imports CuPy and says "loaded" before any CUDA
    call; told to warm, it tries the GPU (none here) and says why it cannot serve."""
    from kernels.engine.gpu.worker_process import Limits, new_worker

    from .gpuhelp import need_sandbox_without_gpu

    need_sandbox_without_gpu()
    w = new_worker(Limits(), deferred=True)
    try:
        assert w.next_event(60) == {"ev": "loaded"}
        with pytest.raises(RuntimeError) as info:
            w.wait_ready(60)
        assert "'ev': 'broken'" in str(info.value)
    finally:
        w.close()
