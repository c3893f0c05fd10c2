"""The parent's side of the GPU worker protocol against a worker that breaks it (hostile_worker.py):
no event a worker sends can make ``run_job`` raise, outlive the job's limit, name another exercise,
claim a sandbox it did not have, or hold more of its output than the caps. Runs without a GPU.

Documented behaviour (gpu/runner.py, gpu/worker_process.py, gpu/jobs.py): a worker that ends or
breaks after acknowledging a job is never given the job again (the learner's code may have run) and
the result blames the server (UNAVAILABLE_WORKER_CRASHED), never the learner; a watch cannot extend
the job's own limit; the result is always for the job's exercise and says whether the worker really
ran sandboxed; 16 KiB of device output and 16 KiB of stderr are kept, however much is written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kernels.engine.result import Verdict
from tests.gpu.test_gpu_cpu_side import _run, fake_runner  # noqa: F401  (the fixture)

HOSTILE = Path(__file__).with_name("hostile_worker.py")
JOB_S = 2.0


@pytest.fixture
def hostile(fake_runner, monkeypatch, tmp_path):  # noqa: F811  (the imported fixture)
    """test_gpu_cpu_side's runner (fake workers, no spares), its workers started from hostile_worker.py
    and its job limit 2 s."""
    from kernels.engine.gpu import sandbox

    runner, mode = fake_runner
    monkeypatch.setattr(sandbox, "worker_command",
                        lambda opts, fd, sandboxed: [sys.executable, str(HOSTILE), str(fd), mode["value"]])
    monkeypatch.setenv("HOSTILE_LOG", str(tmp_path / "jobs.log"))
    runner.limits.job_s = JOB_S
    return runner, mode


def _grade(runner, mode, value):
    mode["value"] = value
    return _run(runner)


def _server_fault(result, stage):
    assert result.verdict is Verdict.UNAVAILABLE
    assert result.message.code == "UNAVAILABLE_WORKER_CRASHED"
    assert result.message.params == {"stage": stage}


def test_a_worker_that_dies_after_taking_the_job_is_not_given_it_again(hostile, tmp_path):
    runner, mode = hostile
    _server_fault(_grade(runner, mode, "crash_after_ack"), "checking")
    assert len((tmp_path / "jobs.log").read_text().splitlines()) == 1


def test_a_worker_that_says_broken_mid_job_ends_the_job_as_a_server_fault(hostile):
    runner, mode = hostile
    _server_fault(_grade(runner, mode, "broken_mid_job"), "checking")


def test_a_watch_longer_than_the_job_does_not_extend_the_jobs_limit(hostile):
    runner, mode = hostile
    result = _grade(runner, mode, "endless_watch")
    assert result.verdict is Verdict.TIME_LIMIT
    assert result.message.params == {"seconds": 2.0, "phase": "checking"}


@pytest.mark.parametrize("value", ["garbage_line", "list_line", "bad_watch_limit"])
def test_a_line_that_is_not_a_protocol_event_ends_the_job_as_a_server_fault(hostile, value):
    runner, mode = hostile
    _server_fault(_grade(runner, mode, value), "checking")


@pytest.mark.parametrize("value", ["bad_verdict", "result_not_object", "schema_not_text"])
def test_a_result_that_is_no_result_is_a_server_fault(hostile, value):
    runner, mode = hostile
    _server_fault(_grade(runner, mode, value), "result")


def test_a_forged_exercise_and_sandbox_claim_are_overwritten(hostile, monkeypatch):
    runner, mode = hostile
    result = _grade(runner, mode, "forged")
    assert result.verdict is Verdict.PASSED
    assert result.exercise == "gemm"
    assert result.versions["gpu_worker"] == "sandboxed"
    monkeypatch.setenv("MKC_UNSAFE_UNSANDBOXED_GPU", "1")  # started without bubblewrap from now on
    unsandboxed = _grade(runner, mode, "forged")
    assert unsandboxed.exercise == "gemm"
    assert unsandboxed.versions["gpu_worker"] == "UNSANDBOXED"


def test_a_flood_of_output_keeps_16_kib_of_each_stream(hostile):
    runner, mode = hostile
    mode["value"] = "flood"
    final, worker = runner.run({"job": 1}, lambda ev: None)
    assert final["ev"] == "result"
    text, total = worker.learner_output()
    assert total == 1024 * 1024
    assert len(worker.output) == 16 * 1024 and text == "x" * (16 * 1024)
    assert len(worker.stderr) == 16 * 1024
