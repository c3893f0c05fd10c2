"""The GPU worker's verdict order when more than one thing goes wrong, without a GPU: the worker's
``run_job`` with its GPU steps replaced by stand-ins (correctness passes; each timing size returns
its re-checks or stops). Documented in gpu/worker.py and gpu/timed_runs.py: a wrong answer found
in the timed runs of any size timed so far is the verdict before a later size's TOO_SLOW or fault,
and an input the kernel changed is a WRONG_ANSWER (INPUT_MODIFIED), never a runtime error."""

from __future__ import annotations

import pytest

SMALL, BIG = {"M": 1024, "N": 1024, "K": 1024}, {"M": 2048, "N": 2048, "K": 2048}
WRONG = {"index": [3, 7], "got": 1.5, "expected": 2.5}
JOB = {"exercise": {"id": "gemm", "folder": "/nowhere", "correctness_sizes": [{"M": 17, "N": 17, "K": 17}],
                    "timing_sizes": [SMALL, BIG], "work": {"metric": "TFLOP/s"}, "baseline": "cublas_sgemm",
                    "tiers": [], "pass_xp": 5},
       "learner": {}, "references": {}, "seed": 1, "limits": {"job_s": 60.0}, "work_amounts": [1.0, 1.0]}


@pytest.fixture
def worker(monkeypatch):
    """kernels.engine.gpu.worker with every GPU step stubbed; ``sizes`` says what each size does."""
    from kernels.engine.gpu import timed_runs, worker

    sizes: list = []
    monkeypatch.setattr(worker, "send", lambda event: None)
    monkeypatch.setattr(worker, "load_reference", lambda folder, exercise_id: None)
    monkeypatch.setattr(worker, "Kernel", lambda spec, exercise: None)
    monkeypatch.setattr(worker, "check_correctness", lambda *a: None)
    monkeypatch.setattr(timed_runs, "prepare_inputs", lambda *a, **k: [])

    def time_one_size(run, size, index):
        outcome = sizes[index]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome(size)

    monkeypatch.setattr(timed_runs, "time_one_size", time_one_size)
    return worker, sizes


def timed(found=None, changed=None):
    from kernels.engine.gpu.timed_runs import SizeTimings

    return lambda size: SizeTimings(sizes=size, stats={}, checked_rounds=1, work=1.0,
                                    verdicts=[lambda: found], changed=lambda: changed)


def test_a_wrong_timed_run_at_a_smaller_size_comes_before_too_slow(worker):
    from kernels.engine.gpu.budget import TooSlow
    from kernels.engine.gpu.launching import JobFailed

    module, sizes = worker
    sizes[:] = [timed(found=WRONG), TooSlow(3000.0, BIG)]
    with pytest.raises(JobFailed) as info:
        module.run_job(dict(JOB), flusher=None)
    assert info.value.result.verdict.value == "WRONG_ANSWER"
    assert info.value.result.message.code == "WRONG_ANSWER_TIMED_RUN"
    assert info.value.result.message.params["size"] == SMALL


def test_too_slow_with_every_timed_run_right_keeps_the_correctness_and_no_tiers(worker):
    from kernels.engine.gpu.budget import TooSlow

    module, sizes = worker
    sizes[:] = [timed(), TooSlow(3000.0, BIG)]
    result = module.run_job(dict(JOB), flusher=None)
    assert result.verdict.value == "TOO_SLOW"
    assert result.message.code == "TOO_SLOW"
    assert result.message.params == {"ratio": 3000.0, "limit": 20.0, "size": BIG}
    assert result.speedups == [] and result.tiers == []


def test_a_wrong_timed_run_at_a_smaller_size_comes_before_a_later_fault(worker):
    from kernels.engine.gpu.launching import JobFailed
    from kernels.engine.result import Message, Result, Verdict

    module, sizes = worker
    fault = Result(verdict=Verdict.RUNTIME_ERROR, message=Message("RUNTIME_ILLEGAL_ADDRESS", {"size": BIG}))
    sizes[:] = [timed(found=WRONG), JobFailed(fault)]
    with pytest.raises(JobFailed) as info:
        module.run_job(dict(JOB), flusher=None)
    assert info.value.result.message.code == "WRONG_ANSWER_TIMED_RUN"


def test_an_input_changed_in_a_timed_run_is_a_wrong_answer(worker):
    from kernels.engine.gpu.launching import JobFailed

    module, sizes = worker
    sizes[:] = [timed(changed=("A", [0, 1])), timed()]
    with pytest.raises(JobFailed) as info:
        module.run_job(dict(JOB), flusher=None)
    assert info.value.result.verdict.value == "WRONG_ANSWER"
    assert info.value.result.message.code == "INPUT_MODIFIED"
    assert info.value.result.message.params == {"size": SMALL, "input": "A", "index": [0, 1]}
