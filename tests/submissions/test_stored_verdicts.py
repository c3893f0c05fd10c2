"""From the engine's Result to the stored row (dispatcher ``_finish``, gpu_budget): the verdict as
the engine gave it, the row done, the GPU milliseconds of its checking and timing rounded to the
nearest one; only "no GPU here" leaves a row waiting for a GPU. A learner exactly at their GPU budget
waits like one over it. On SQLite and PostgreSQL."""
from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from app.core.clock import utcnow
from app.core.services import app_services
from app.submissions.dispatcher import Dispatcher, DispatcherConfig
from app.submissions.models import Submission
from kernels.engine.result import Message, PhaseTiming, Result, Verdict

from .conftest import gemm_source


def engine_says(verdict: Verdict, code: str):
    def grade(exercise_id, source, launch, on_phase):
        on_phase("checking")
        on_phase("timing")
        return Result(verdict=verdict, exercise=exercise_id, message=Message(code, {}),
                      phases=[PhaseTiming("compiling", 70.0), PhaseTiming("checking", 300.4),
                              PhaseTiming("timing", 200.3)])
    return grade


def _row(factory, sub_id: int) -> Submission:
    with factory() as db:
        row = db.get(Submission, sub_id)
        db.expunge(row)
        return row


@pytest.mark.parametrize("verdict,code", [
    (Verdict.WRONG_ANSWER, "WRONG_ANSWER"),
    (Verdict.TOO_SLOW, "TOO_SLOW"),
    (Verdict.TIME_LIMIT, "TIME_LIMIT_EXCEEDED"),
    (Verdict.UNAVAILABLE, "UNAVAILABLE_WORKER_CRASHED"),
    (Verdict.PASSED, "PASSED"),
])
def test_the_engines_verdict_is_stored_as_a_finished_row(sub_settings, make_client, api_for, verdict, code):
    client = make_client(sub_settings(submission_max_in_flight=10))
    factory = app_services(client.app).session_factory
    ann = api_for(client, "ann")
    first = ann.submit(gemm_source("a")).json()["id"]
    second = ann.submit(gemm_source("b")).json()["id"]
    dispatcher = Dispatcher(factory, DispatcherConfig(gpu=True, lane="t:gpu0"), grade=engine_says(verdict, code))
    assert dispatcher.step()
    row = _row(factory, first)
    assert (row.state, row.verdict, row.gpu_ms) == ("done", verdict.value, 501)  # 300.4 + 200.3 ms
    assert Result.from_json(row.result).message.code == code
    # a fault of one job (even the worker's) is not "no GPU": the lane goes on taking GPU jobs
    assert dispatcher.gpu is True
    assert dispatcher.step() and _row(factory, second).state == "done"


def test_only_no_gpu_here_leaves_the_row_waiting_for_a_gpu(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=10))
    factory = app_services(client.app).session_factory
    ann = api_for(client, "ann")
    job = ann.submit(gemm_source("a")).json()["id"]
    dispatcher = Dispatcher(factory, DispatcherConfig(gpu=True, lane="t:gpu0"),
                            grade=engine_says(Verdict.UNAVAILABLE, "UNAVAILABLE_NO_GPU"))
    assert dispatcher.step()
    assert _row(factory, job).state == "awaiting_gpu"
    assert dispatcher.gpu is False


def test_a_learner_exactly_at_the_gpu_budget_waits(sub_settings, make_client, api_for):
    from app.accounts.models import User
    from app.submissions import states

    client = make_client(sub_settings(submission_max_in_flight=10, gpu_budget_seconds=10))
    factory = app_services(client.app).session_factory
    ann = api_for(client, "ann")
    finished = utcnow() - dt.timedelta(minutes=20)
    with factory() as db:
        user_id = db.scalar(select(User.id).where(User.username == "ann"))
        db.add(Submission(user_id=user_id, exercise_id="gemm", source="// earlier", state=states.DONE,
                          verdict="PASSED", result="{}", created_at=finished, claimed_at=finished,
                          finished_at=finished, gpu_ms=10_000, recorded=True))  # 10 s of a 10 s budget
        db.commit()
    job = ann.submit(gemm_source("a")).json()["id"]
    assert ann.get(job).json()["gpu_wait_until"] == (finished + dt.timedelta(hours=1)).isoformat() + "Z"
    dispatcher = Dispatcher(factory, DispatcherConfig(gpu=True, lane="t:gpu0", gpu_budget_seconds=10),
                            grade=engine_says(Verdict.PASSED, "PASSED"))
    assert not dispatcher.step()
    assert _row(factory, job).state == "queued"
