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
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    assert lock_path() == unbound  # unbound is device 0: a bound server and an unbound bench share it
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


def gate_pool(monkeypatch, tmp_path, spare_mode: str):
    """``fake_pool`` whose jobs say "checked" and wait for "time"; its spares run ``spare_mode``."""
    return fake_pool(monkeypatch, tmp_path, lambda opts, fd, sandboxed: [
        sys.executable, str(FAKE), str(fd), spare_mode if opts.get("deferred") else "gate"], job_s=60.0)


def spare_when(runner, test, timeout: float = 30.0):
    """The runner's next spare once ``test(spare)`` holds (None after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with runner._spare_mutex:
            spare = runner._spares[0] if runner._spares else None
        if spare is not None and test(spare):
            return spare
        time.sleep(0.01)
    return None


def test_three_spares_load_during_the_job_and_the_next_job_takes_one(monkeypatch, tmp_path):
    from kernels.engine.gpu.runner import run_job

    started = []

    def command(opts, fd, sandboxed):
        started.append((time.monotonic(), bool(opts.get("deferred"))))
        return [sys.executable, str(FAKE), str(fd), "deferred_slow" if opts.get("deferred") else "slow"]

    runner, ex, plan = fake_pool(monkeypatch, tmp_path, command, job_s=10.0)
    seen = {}
    first_done: list[bool] = []

    def look():  # during the first (1 s) job: two spares exist, the first told to make its context
        # (waits for them rather than sleeping a fixed time: under load the first worker's own start
        # can take longer than any fixed guess)
        spare = spare_when(runner, lambda s: s.alive() and len(runner._spares) == 3)
        seen["spare"] = spare is not None and spare.warm_sent and not spare.prime_sent and not first_done
        seen["others"] = spare is not None and not any(s.warm_sent for s in runner._spares[1:])
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
    assert seen == {"spare": True, "others": True}, "no three workers were loading while the first job ran"
    assert first.versions["gpu_cold_start"] == "True" and second.versions["gpu_cold_start"] == "False"
    assert [deferred for _, deferred in started][:4] == [False, True, True, True]
    assert len(started) == 5  # the second job took one spare and started one more


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


def test_the_next_worker_launches_nothing_until_the_job_in_hand_has_timed_its_last_round(monkeypatch, tmp_path):
    """Its context is made during the job (that queues no GPU work); its first launches ("prime")
    wait until the worker says "timed", and then come before the job ends."""
    from kernels.engine.gpu.runner import run_job

    gate = str(tmp_path / "gate")
    primed = tmp_path / "primed"
    monkeypatch.setenv("FAKE_GATE", gate)
    monkeypatch.setenv("FAKE_PRIMED", str(primed))
    runner, ex, plan = fake_pool(monkeypatch, tmp_path, lambda opts, fd, sandboxed: [
        sys.executable, str(FAKE), str(fd), "deferred_gated" if opts.get("deferred") else "gated"], job_s=60.0)
    seen = {}

    def steer():
        # The job waits for gate.2 until its 60 s limit: this thread opens it whatever it saw, so a
        # failed look is an assertion below, not a job that ran into TIME_LIMIT.
        try:
            spare = spare_when(runner, lambda s: s.alive() and s.warm_sent)
            seen["before"] = spare is not None and not spare.prime_sent  # the job is "timing" now
            Path(gate + ".1").touch()  # the job's last round: it says "timed"
            seen["after"] = spare_when(runner, lambda s: s.prime_sent, timeout=15.0) is spare is not None
            deadline = time.monotonic() + 15
            while not primed.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            seen["primed"] = (spare is not None and primed.exists()
                              and int(primed.read_text().split()[0]) == spare.proc.pid)
        finally:
            Path(gate + ".1").touch()
            Path(gate + ".2").touch()

    watcher = threading.Thread(target=steer)
    watcher.start()
    try:
        result = run_job(ex, Compiled(), plan, None, runner=runner)
        watcher.join()
    finally:
        runner.shutdown()
    assert result.verdict.value == "PASSED"
    assert seen == {"before": True, "after": True, "primed": True}


def test_no_job_is_timed_while_a_spare_makes_its_context(monkeypatch, tmp_path):
    """A job says "checked" before its first timed round; the runner answers "time" only once every
    spare told to make its context has made it (a context made beside timed kernels moves them)."""
    from kernels.engine.gpu.runner import run_job

    log = tmp_path / "log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    runner, ex, plan = gate_pool(monkeypatch, tmp_path, "deferred_gate")
    try:
        results = [run_job(ex, Compiled(), plan, None, runner=runner) for _ in range(3)]
    finally:
        runner.shutdown()
    assert [r.verdict.value for r in results] == ["PASSED"] * 3
    events = [(kind, float(when), pid) for kind, when, pid in
              (line.split() for line in log.read_text().splitlines())]
    lets = [when for kind, when, _ in events if kind == "time"]
    assert len(lets) == 3  # every job was let through, with the word "time"
    warmed = {pid: when for kind, when, pid in events if kind == "warm"}
    made = {pid: when for kind, when, pid in events if kind == "ready"}
    assert len(warmed) >= 2  # spares did make contexts while jobs ran
    for let in lets:  # a context asked for before a job's first timed round was made before it
        for pid, asked in warmed.items():
            if asked < let:
                assert pid in made and made[pid] <= let


def test_a_spare_that_never_makes_its_context_is_killed_and_the_job_goes_on(monkeypatch, tmp_path):
    """The wait before a job's first timed round is bounded: a spare slower than that is broken; it
    is killed (so it cannot disturb the timing either) and the job is timed and passes."""
    from kernels.engine.gpu import runner as runner_module
    from kernels.engine.gpu.runner import run_job

    log = tmp_path / "log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setattr(runner_module, "SPARE_READY_WAIT_S", 0.5)
    from kernels.engine.gpu.worker_process import Worker

    killed = []
    kill = Worker.kill

    def noted_kill(self):
        killed.append((self.warm_sent, self.ready is None, time.monotonic()))
        kill(self)

    monkeypatch.setattr(Worker, "kill", noted_kill)
    runner, ex, plan = gate_pool(monkeypatch, tmp_path, "deferred_stuck")
    try:
        result = run_job(ex, Compiled(), plan, None, runner=runner)
    finally:
        runner.shutdown()
    assert result.verdict.value == "PASSED"
    # before the job's own worker was reaped (the first ready one killed), one worker was killed: a
    # spare told to make its context that never made it (later kills are the pool's clean-up)
    reaped = [(warm, unready) for warm, unready, _ in killed].index((True, False))
    assert [(warm, unready) for warm, unready, _ in killed][:reaped + 1] == [(True, True), (True, False)]
    assert [line.split()[0] for line in log.read_text().splitlines()] == ["time"]


def test_a_slow_phase_hook_does_not_hold_the_job_before_its_first_timed_round(monkeypatch, tmp_path):
    """The "timing" phase shown on a learner's page is a database write that may wait for a lock; the
    job is let through to its timed rounds without waiting for it, and every hook call has ended when
    the grade returns."""
    from kernels.engine.gpu.runner import run_job
    from kernels.engine.gpu.worker_process import Worker

    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "log"))
    let_through = threading.Event()
    release = Worker.release_timing

    def noted_release(self):
        release(self)
        let_through.set()

    monkeypatch.setattr(Worker, "release_timing", noted_release)
    seen = []

    def slow_hook(phase):
        if phase == "timing":  # blocks until the job was let through, or gives up after 20 s
            seen.append(("timing", let_through.wait(20)))
        else:
            seen.append((phase, None))

    runner, ex, plan = gate_pool(monkeypatch, tmp_path, "deferred_gate")
    try:
        result = run_job(ex, Compiled(), plan, slow_hook, runner=runner)
    finally:
        runner.shutdown()
    assert result.verdict.value == "PASSED"
    assert seen == [("checking", None), ("timing", True)]


def test_a_phase_hook_that_fails_does_not_change_the_grade(monkeypatch, tmp_path):
    """A hook's error while the job runs (the database is gone) is logged; the job is graded as if the
    hook had worked, and the next job runs."""
    from kernels.engine.gpu.runner import run_job

    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "log"))

    calls = []

    def failing_hook(phase):
        calls.append(phase)
        if phase == "timing":
            raise RuntimeError("database unreachable")

    runner, ex, plan = gate_pool(monkeypatch, tmp_path, "deferred_gate")
    try:
        assert run_job(ex, Compiled(), plan, failing_hook, runner=runner).verdict.value == "PASSED"
        assert run_job(ex, Compiled(), plan, None, runner=runner).verdict.value == "PASSED"
    finally:
        runner.shutdown()
    assert calls == ["checking", "timing"]


def test_a_worker_closed_twice_leaves_other_files_alone(monkeypatch, tmp_path):
    """A worker may be closed where it is found dead and killed again where the spares are tidied: the
    second close must not close the descriptor number its protocol pipe had, which another file (the
    GPU lock's, in a run that lost jobs to it) may have since."""
    import os

    from kernels.engine.gpu import sandbox
    from kernels.engine.gpu.worker_process import Limits, Worker

    monkeypatch.setattr(sandbox, "worker_command",
                        lambda opts, fd, sandboxed: [sys.executable, str(FAKE), str(fd), "deferred_ok"])
    monkeypatch.setattr(sandbox, "bwrap_binary", lambda: "/bin/true")
    worker = Worker(Limits(start_s=20.0), deferred=True)
    number = worker.proto_fd
    worker.close()
    opened = os.open(tmp_path / "lock", os.O_WRONLY | os.O_CREAT)
    if opened != number:  # another file now has the number the protocol pipe had
        os.dup2(opened, number)
        os.close(opened)
    try:
        worker.kill()
        worker.close()
        with pytest.raises(EOFError):
            worker.next_event(1.0)
        os.write(number, b"still mine")  # raises if the number was closed
    finally:
        os.close(number)
    assert (tmp_path / "lock").read_text() == "still mine"
