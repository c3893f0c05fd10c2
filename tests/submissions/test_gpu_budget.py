"""The per-learner GPU budget (MKC_GPU_BUDGET_SECONDS): GPU seconds one learner may use per hour.
A learner over it waits, everyone else's jobs are claimed as usual, and their queued submission says
when their next job can run, in both languages; on SQLite and on PostgreSQL. The GPU run is a
stand-in that reports the engine's phases (checking 400 ms, timing 600 ms)."""
from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select, update

from app.core.clock import utcnow
from app.core.services import app_services
from app.submissions import queue, states
from app.submissions.dispatcher import Dispatcher, DispatcherConfig
from app.submissions.models import Submission
from kernels.engine.result import Message, PhaseTiming, Result, Verdict

from .conftest import gemm_source


def one_second_on_the_gpu(exercise_id, source, launch, on_phase):
    on_phase("compiling")
    on_phase("checking")
    on_phase("timing")
    return Result(verdict=Verdict.PASSED, exercise=exercise_id, message=Message("PASSED", {"sizes": 12}),
                  phases=[PhaseTiming("validating", 1.0), PhaseTiming("compiling", 70.0),
                          PhaseTiming("checking", 400.0), PhaseTiming("timing", 600.0)])


def gpu_dispatcher(factory, budget: float = 10.0) -> Dispatcher:
    return Dispatcher(factory, DispatcherConfig(gpu=True, lane="t:gpu0", gpu_budget_seconds=budget),
                      grade=one_second_on_the_gpu)


def used_gpu(factory, username: str, ms: int, minutes_ago: float) -> dt.datetime:
    """A finished submission of ``username`` that held the GPU ``ms`` milliseconds; its finish time."""
    from app.accounts.models import User

    finished = utcnow() - dt.timedelta(minutes=minutes_ago)
    with factory() as db:
        user_id = db.scalar(select(User.id).where(User.username == username))
        db.add(Submission(user_id=user_id, exercise_id="gemm", source="// earlier", state=states.DONE,
                          verdict="PASSED", result="{}", created_at=finished, claimed_at=finished,
                          finished_at=finished, gpu_ms=ms, recorded=True))
        db.commit()
    return finished


def in_lang(api, sub_id: int, lang: str):
    return api.client.get(f"/api/submissions/{sub_id}", headers={**api.headers, "Accept-Language": lang})


def claimed(factory, sub_id: int) -> bool:
    with factory() as db:
        return db.get(Submission, sub_id).claimed_at is not None


def test_a_learner_over_the_budget_waits_and_the_others_do_not(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=10, gpu_budget_seconds=10))
    factory = app_services(client.app).session_factory
    ann, bob = api_for(client, "ann"), api_for(client, "bob")
    finished = used_gpu(factory, "ann", 12_000, minutes_ago=10)  # 12 s of a 10 s budget
    ann_job = ann.submit(gemm_source("a")).json()["id"]
    bob_job = bob.submit(gemm_source("b")).json()["id"]  # later, but ann may not run now
    dispatcher = gpu_dispatcher(factory)

    assert dispatcher.step() and claimed(factory, bob_job) and not claimed(factory, ann_job)
    assert not dispatcher.step()  # only ann's job is left, and she is over budget
    view = in_lang(ann, ann_job, "en").json()
    assert view["state"] == "queued"
    until = finished + dt.timedelta(hours=1)
    assert view["gpu_wait_until"] == until.isoformat() + "Z"
    assert view["state_text"] == ("Waiting: you used 12 of your 10 seconds of GPU time this hour. "
                                  f"Your next job can run at {until:%H:%M} (UTC).")
    ko = in_lang(ann, ann_job, "ko").json()
    assert ko["state_text"] == (f"기다리는 중이에요: 이번 한 시간 동안 GPU 시간 10초 중 12초를 썼어요. "
                                f"다음 작업은 {until:%H:%M}(UTC)에 실행될 수 있어요.")
    assert bob.get(bob_job).json()["gpu_wait_until"] is None

    with factory() as db:  # the hour passes for ann's earlier run
        db.execute(update(Submission).where(Submission.gpu_ms == 12_000)
                   .values(finished_at=utcnow() - dt.timedelta(minutes=61)))
        db.commit()
    assert dispatcher.step() and claimed(factory, ann_job)
    with factory() as db:
        assert db.get(Submission, bob_job).gpu_ms == 1000  # checking + timing, not the compile


def test_the_next_run_time_is_when_enough_usage_leaves_the_window(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=10, gpu_budget_seconds=10))
    factory = app_services(client.app).session_factory
    ann = api_for(client, "ann")
    used_gpu(factory, "ann", 5_000, minutes_ago=50)
    second = used_gpu(factory, "ann", 5_000, minutes_ago=40)
    used_gpu(factory, "ann", 5_000, minutes_ago=5)  # 15 s; without the oldest still 10 s: not under 10
    job = ann.submit(gemm_source("a")).json()["id"]
    view = ann.get(job).json()
    assert view["gpu_wait_until"] == (second + dt.timedelta(hours=1)).isoformat() + "Z"


@pytest.mark.parametrize("budget,used_ms", [(10, 9_999), (0, 3_600_000)], ids=["within", "zero_is_no_limit"])
def test_within_the_budget_or_without_one_nothing_changes(sub_settings, make_client, api_for, budget, used_ms):
    client = make_client(sub_settings(submission_max_in_flight=10, gpu_budget_seconds=budget))
    factory = app_services(client.app).session_factory
    ann = api_for(client, "ann")
    used_gpu(factory, "ann", used_ms, minutes_ago=10)
    job = ann.submit(gemm_source("a")).json()["id"]
    view = in_lang(ann, job, "en").json()
    assert view["gpu_wait_until"] is None and view["state_text"] == "Waiting in the queue (position 1)."
    assert gpu_dispatcher(factory, budget=budget).step() and claimed(factory, job)


def test_the_budget_is_part_of_the_claim_itself(sub_settings, make_client, api_for):
    """A job picked while its learner was within budget is not taken once they are over: the check
    is in the claiming UPDATE, not a read before it."""
    client = make_client(sub_settings(submission_max_in_flight=10, gpu_budget_seconds=10))
    factory = app_services(client.app).session_factory
    ann = api_for(client, "ann")
    job = ann.submit(gemm_source("a")).json()["id"]
    used_gpu(factory, "ann", 10_000, minutes_ago=1)  # e.g. another GPU finished her other job
    with factory() as db:
        assert queue.claim(db, job, lane="t:gpu1", owner="me", gpu=True, lease_seconds=30,
                           gpu_budget_seconds=10) is None
        assert db.get(Submission, job, populate_existing=True).state == states.QUEUED
        assert queue.claim(db, job, lane="t:gpu1", owner="me", gpu=True, lease_seconds=30,
                           gpu_budget_seconds=11) is not None


def test_cluster_mode_hands_the_job_back_until_the_budget_frees(sub_settings, make_client, api_for):
    """``run_claimed`` (the cluster's GPU stage): the job is not graded; ``over_budget`` is told when
    the learner's next job can run (cluster workers defer the grading job to then)."""
    client = make_client(sub_settings(submission_max_in_flight=10, gpu_budget_seconds=10))
    factory = app_services(client.app).session_factory
    ann, bob = api_for(client, "ann"), api_for(client, "bob")
    finished = used_gpu(factory, "ann", 15_000, minutes_ago=30)
    ann_job = ann.submit(gemm_source("a")).json()["id"]
    bob_job = bob.submit(gemm_source("b")).json()["id"]
    dispatcher = gpu_dispatcher(factory)
    dispatcher.uses_lanes = False
    handed_back = []
    dispatcher.over_budget = lambda db, row, until: handed_back.append((row.id, until))
    try:
        assert dispatcher.run_claimed(ann_job) is False
        assert handed_back == [(ann_job, finished + dt.timedelta(hours=1))]
        assert ann.get(ann_job).json()["state"] == "queued"
        assert dispatcher.run_claimed(bob_job) is True
        assert bob.get(bob_job).json()["verdict"] == "PASSED"
    finally:
        dispatcher.stop()


def test_the_panel_says_when_the_next_job_can_run_in_both_languages(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=10, gpu_budget_seconds=10))
    factory = app_services(client.app).session_factory
    ann = api_for(client, "ann")
    finished = used_gpu(factory, "ann", 12_000, minutes_ago=10)
    job = ann.submit(gemm_source("a")).json()["id"]
    until = finished + dt.timedelta(hours=1)
    en = client.get(f"/en/panel/submissions/{job}", headers=ann.headers)
    ko = client.get(f"/ko/panel/submissions/{job}", headers=ann.headers)
    assert en.status_code == 200 and ko.status_code == 200
    assert f"Your next job can run at {until:%H:%M} (UTC)." in en.text
    assert f"다음 작업은 {until:%H:%M}(UTC)에 실행될 수 있어요." in ko.text
