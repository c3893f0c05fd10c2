"""A GPU worker process grades several jobs (``MKC_GPU_WORKER_JOBS``), each in a CUDA context of its
own, through the runner's spares: tested with the protocol's stand-in (fake_worker.py), no GPU. The
real worker's side (a fresh context per job, nothing left from the job before) is tested on the GPU
in test_gpu_grading.py."""

from __future__ import annotations

import re
import sys
import time

from .test_gpu_binding_preload import FAKE, Compiled, fake_pool


def grade_in_turn(monkeypatch, tmp_path, mode: str, jobs: int, count: int):
    """``count`` jobs one after another on a pool of ``mode`` workers that may grade ``jobs`` each:
    (their Results, the workers started)."""
    from kernels.engine.gpu.runner import run_job

    started: list[bool] = []

    def command(opts, fd, sandboxed):
        started.append(bool(opts.get("deferred")))
        return [sys.executable, str(FAKE), str(fd), ("deferred_" if opts.get("deferred") else "") + mode,
                str(opts["jobs"])]

    monkeypatch.setenv("FAKE_OUTPUT", "1")
    runner, ex, plan = fake_pool(monkeypatch, tmp_path, command, job_s=20.0, jobs=jobs)
    try:
        results = [run_job(ex, Compiled(), plan, None, runner=runner) for _ in range(count)]
    finally:
        runner.shutdown()
    return results, started


def printed(result) -> str:
    flags = [flag for flag in result.flags if flag.code == "DEVICE_OUTPUT"]
    assert len(flags) == 1, result.flags
    return flags[0].params["text"]


def test_a_worker_grades_up_to_its_jobs_each_with_only_its_own_device_output(monkeypatch, tmp_path):
    results, started = grade_in_turn(monkeypatch, tmp_path, "ok", jobs=3, count=8)
    assert [r.verdict.value for r in results] == ["PASSED"] * 8
    lines = [printed(r) for r in results]
    assert all(re.fullmatch(r"job [123] of \d+\n", line) for line in lines), lines  # one job's line each
    served: dict[str, list[int]] = {}
    for line in lines:
        number, pid = re.match(r"job (\d) of (\d+)", line).groups()
        served.setdefault(pid, []).append(int(number))
    assert all(numbers == list(range(1, len(numbers) + 1)) for numbers in served.values()), served
    assert max(len(numbers) for numbers in served.values()) == 3  # workers came back for more jobs
    assert len(started) < 8  # fewer processes than jobs (the spares included)
    assert results[0].versions["gpu_worker_job"] == "1" and "3" in {r.versions["gpu_worker_job"] for r in results}


def test_a_worker_that_ends_after_a_job_is_not_given_another(monkeypatch, tmp_path):
    """A worker ends itself after a job that faulted (mode "fault": it exits instead of "loaded"):
    the next job goes to another worker, and no job waits for the one that left."""
    t0 = time.monotonic()
    results, started = grade_in_turn(monkeypatch, tmp_path, "fault", jobs=3, count=4)
    assert [r.verdict.value for r in results] == ["PASSED"] * 4
    lines = [printed(r) for r in results]
    assert all(line.startswith("job 1 of ") for line in lines), lines
    assert len({line for line in lines}) == 4  # four processes, one job each
    assert len(started) >= 4
    assert time.monotonic() - t0 < 60  # nothing waited out a limit for the worker that left


def test_one_job_per_worker_starts_a_process_per_job(monkeypatch, tmp_path):
    results, started = grade_in_turn(monkeypatch, tmp_path, "ok", jobs=1, count=3)
    lines = [printed(r) for r in results]
    assert all(line.startswith("job 1 of ") for line in lines) and len(set(lines)) == 3


def test_a_worker_closed_twice_leaves_other_files_alone(monkeypatch, tmp_path):
    """A worker is closed when it ends its last job and killed later when the spares are tidied: the
    second close must not close the descriptor number its protocol pipe had, which another file (the
    GPU lock's, in a run that lost jobs to it) may have since."""
    import os

    import pytest

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
