"""Nothing is lost: jobs of a dead dispatcher are graded again, leases are respected while they
run, a poison job stops after max_attempts, and XP is paid exactly once per submission."""
from __future__ import annotations

import datetime as dt
import subprocess

from sqlalchemy import func, select

from app.core.clock import utcnow
from app.core.services import app_services
from app.progress.models import Event, XpEntry
from app.submissions import lanes, queue
from app.submissions.dispatcher import Dispatcher, DispatcherConfig
from app.submissions.models import DispatcherLane, Submission
from kernels.engine import load_exercise

from .conftest import gemm_source


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def leave_running(factory, sub_id, *, lane, owner, expires_in: float, state="checking"):
    """What a dispatcher leaves behind when it is killed in the middle of a job."""
    with factory() as db:
        row = db.get(Submission, sub_id)
        row.state, row.lane, row.lease_owner, row.attempts = state, lane, owner, 1
        row.claimed_at = utcnow()
        row.lease_expires_at = utcnow() + dt.timedelta(seconds=expires_in)
        db.merge(DispatcherLane(name=lane, owner=owner, expires_at=row.lease_expires_at, heartbeat_at=utcnow()))
        db.commit()


def test_restart_on_the_same_host_takes_over_at_once(sub_settings, make_client, api_for, fake_gpu):
    client = make_client(sub_settings(submission_max_in_flight=5))
    kim = api_for(client, "kim")
    factory = app_services(client.app).session_factory
    running, waiting = (kim.submit(gemm_source(t)).json()["id"] for t in ("running", "waiting"))
    ghost = f"{lanes.HOST}:{dead_pid()}:dead"
    leave_running(factory, running, lane="here:gpu0", owner=ghost, expires_in=3600)  # lease far from over

    restarted = Dispatcher(factory, DispatcherConfig(gpu=True, lane="here:gpu0"))
    assert restarted.step() and restarted.step() and not restarted.step()
    for sub_id in (running, waiting):
        view = kim.get(sub_id).json()
        assert view["state"] == "done" and view["verdict"] == "PASSED", view
    assert kim.get(running).json()["attempts"] == 2


def test_a_live_lease_is_respected_and_an_expired_one_reclaimed(sub_settings, make_client, api_for, fake_gpu):
    client = make_client(sub_settings())
    kim = api_for(client, "kim")
    factory = app_services(client.app).session_factory
    sub_id = kim.submit(gemm_source()).json()["id"]
    elsewhere = "other-host:4242:abcd"  # cannot be checked from here: only its lease counts
    leave_running(factory, sub_id, lane="other-host:gpu0", owner=elsewhere, expires_in=3600)
    mine = Dispatcher(factory, DispatcherConfig(gpu=True, lane="here:gpu0"))
    assert not mine.step() and kim.get(sub_id).json()["state"] == "checking"
    with factory() as db:
        db.get(Submission, sub_id).lease_expires_at = utcnow() - dt.timedelta(seconds=1)
        db.commit()
    assert mine.step()
    assert kim.get(sub_id).json()["verdict"] == "PASSED"
    with factory() as db:  # the old holder coming back cannot overwrite the new result
        assert not queue.finish(db, sub_id, elsewhere, "done", "{}", "WRONG_ANSWER")
    assert kim.get(sub_id).json()["verdict"] == "PASSED"


def test_a_job_that_keeps_killing_dispatchers_is_given_up(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_attempts=3))
    kim = api_for(client, "kim")
    factory = app_services(client.app).session_factory
    sub_id = kim.submit(gemm_source()).json()["id"]
    leave_running(factory, sub_id, lane="x:gpu0", owner="x:1:y", expires_in=-1)
    with factory() as db:
        db.get(Submission, sub_id).attempts = 3
        db.commit()
    assert Dispatcher(factory, DispatcherConfig(gpu=False, lane="here:cpu")).step()
    view = kim.get(sub_id).json()
    assert view["state"] == "done" and view["verdict"] == "UNAVAILABLE" and view["attempts"] == 4
    assert view["result"]["message"] == {"code": "UNAVAILABLE_INTERNAL", "params": {"stage": "dispatcher"}}


def test_xp_is_paid_once_per_submission(sub_settings, make_client, api_for, fake_gpu):
    client = make_client(sub_settings())
    kim = api_for(client, "kim")
    factory = app_services(client.app).session_factory
    dispatcher = Dispatcher(factory, DispatcherConfig(gpu=True, lane="here:gpu0"))
    first = kim.submit(gemm_source("1")).json()["id"]
    assert dispatcher.step()
    with factory() as db:
        # a crash between storing the verdict and paying XP leaves recorded = False: pay again
        db.get(Submission, first).recorded = False
        db.commit()
    record_calls = []
    original = dispatcher._record
    dispatcher._record = lambda db, row: (record_calls.append(row.id), original(db, row))
    assert not dispatcher.step() and record_calls == [first]
    assert not dispatcher.step() and record_calls == [first]  # recorded now: never again
    second = kim.submit(gemm_source("2")).json()["id"]
    assert dispatcher.step() and record_calls == [first, second]
    with factory() as db:
        attempts = db.scalar(select(func.count()).select_from(Event).where(Event.kind == "exercise_attempted"))
        xp = db.scalar(select(func.sum(XpEntry.amount)))
        assert db.get(Submission, second).recorded
    assert attempts == 2  # one per submission, even though the first was recorded twice
    spec = load_exercise("gemm")
    assert xp == spec.pass_xp + sum(t.xp for t in spec.tiers)  # once, although both submissions passed


def test_jobs_queued_when_the_app_stops_are_graded_by_the_next_app(sub_settings, make_client, api_for):
    settings = sub_settings(submission_max_in_flight=10)
    first = make_client(settings)
    kim = api_for(first, "kim")
    ids = [kim.submit(gemm_source(str(i))).json()["id"] for i in range(3)]
    first.__exit__(None, None, None)  # server stops with the jobs still queued (no dispatcher ran)
    second = make_client(sub_settings(submission_max_in_flight=10, dispatcher_enabled=True))
    kim.client = second
    for sub_id in ids:
        assert kim.wait(sub_id)["state"] == "awaiting_gpu"
