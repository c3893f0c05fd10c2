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


class Compiled:
    cubin, kernel_name, arch = b"\0" * 16, "gemm", "sm_90"


def fake_pool(monkeypatch, tmp_path, command, job_s: float):
    """A runner with a spare whose workers are fake_worker.py (``command`` picks the mode); the
    gemm exercise and its default launch plan."""
    from kernels.engine.gpu import sandbox
    from kernels.engine.gpu.runner import GpuRunner
    from kernels.engine.gpu.worker_process import Limits
    from kernels.engine.launch import validate_launch

    monkeypatch.setattr(sandbox, "worker_command", command)
    monkeypatch.setattr(sandbox, "bwrap_binary", lambda: "/bin/true")
    monkeypatch.setenv("MKC_GPU_LOCK", str(tmp_path / "gpu.lock"))
    ex = load_exercise("gemm")
    return (GpuRunner(Limits(launch_s=5, job_s=job_s, start_s=20.0), keep_spare=True), ex,
            validate_launch(ex.launch_defaults.as_request(), ex))


def spare_when(runner, test, timeout: float = 30.0):
    """The runner's spare once ``test(spare)`` holds (None after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with runner._spare_mutex:
            spare = runner._spare
        if spare is not None and test(spare):
            return spare
        time.sleep(0.01)
    return None


def test_the_next_worker_loads_during_the_job_and_warms_after_it(monkeypatch, tmp_path):
    from kernels.engine.gpu.runner import run_job

    started = []

    def command(opts, fd, sandboxed):
        started.append((time.monotonic(), bool(opts.get("deferred"))))
        return [sys.executable, str(FAKE), str(fd), "deferred_slow" if opts.get("deferred") else "slow"]

    runner, ex, plan = fake_pool(monkeypatch, tmp_path, command, job_s=10.0)
    seen = {}
    first_done: list[bool] = []

    def look():  # during the first (1 s) job: the next worker exists, loaded, not warmed
        # (waits for it rather than sleeping a fixed time: under load the first worker's own start
        # can take longer than any fixed guess, which made this test flaky)
        spare = spare_when(runner, lambda s: s.alive())
        seen["spare"] = spare is not None and spare.ready is None and not first_done
    try:
        watcher = threading.Thread(target=look)
        watcher.start()
        first = run_job(ex, Compiled(), plan, None, runner=runner)
        first_done.append(True)
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


def test_the_next_worker_warms_once_the_job_in_hand_has_timed_its_last_round(monkeypatch, tmp_path):
    """Not while the job is timed, and not only at the next job: when the worker says "timed"."""
    from kernels.engine.gpu.runner import run_job

    gate = str(tmp_path / "gate")
    monkeypatch.setenv("FAKE_GATE", gate)
    runner, ex, plan = fake_pool(monkeypatch, tmp_path, lambda opts, fd, sandboxed: [
        sys.executable, str(FAKE), str(fd), "deferred_gated" if opts.get("deferred") else "gated"], job_s=60.0)
    seen = {}

    def steer():
        spare = spare_when(runner, lambda s: s.alive())
        seen["before"] = spare is not None and not spare.warm_sent  # the job is "timing" now
        Path(gate + ".1").touch()  # the job's last round: it says "timed"
        seen["after"] = spare_when(runner, lambda s: s.warm_sent) is spare is not None
        Path(gate + ".2").touch()

    watcher = threading.Thread(target=steer)
    watcher.start()
    try:
        result = run_job(ex, Compiled(), plan, None, runner=runner)
        watcher.join()
    finally:
        runner.shutdown()
    assert result.verdict.value == "PASSED"
    assert seen == {"before": True, "after": True}
