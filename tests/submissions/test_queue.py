"""The queue: fairness (round-robin by user, oldest first), per-user limits, dispatchers racing
for the same rows (threads and processes on one SQLite file), one dispatcher per lane."""
from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading

from sqlalchemy import func, select

from app.core.config import PROJECT_ROOT
from app.core.services import app_services
from app.submissions import queue
from app.submissions.dispatcher import Dispatcher, DispatcherConfig
from app.submissions.models import Submission

from .conftest import gemm_source


def test_round_robin_by_user_oldest_first(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=10))
    ann, bob, cat = (api_for(client, n) for n in ("ann", "bob", "cat"))
    ids = {}
    for who, n in ((ann, 3), (bob, 2), (cat, 1)):
        ids[who.username] = [who.submit(gemm_source(f"{who.username}{i}")).json()["id"] for i in range(n)]
    dispatcher = Dispatcher(app_services(client.app).session_factory, DispatcherConfig(gpu=False, lane="t:cpu"))
    order = []
    while dispatcher.step():
        with app_services(client.app).session_factory() as db:
            row = db.scalars(select(Submission).where(Submission.claimed_at.is_not(None))  # PostgreSQL sorts NULL first
                                 .order_by(Submission.claimed_at.desc(), Submission.id.desc())).first()
            order.append(row.id)
    a, b, c = ids["ann"], ids["bob"], ids["cat"]
    assert order == [a[0], b[0], c[0], a[1], b[1], a[2]]
    views = [ann.get(i).json() for i in a]
    assert all(v["state"] == "awaiting_gpu" and v["attempts"] == 1 for v in views)  # really compiled


def test_a_user_who_was_just_served_waits_for_the_others(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=10))
    ann, bob = api_for(client, "ann"), api_for(client, "bob")
    dispatcher = Dispatcher(app_services(client.app).session_factory, DispatcherConfig(gpu=False, lane="t:cpu"))
    first = ann.submit(gemm_source("a0")).json()["id"]
    assert dispatcher.step()
    later_ann = [ann.submit(gemm_source(f"a{i}")).json()["id"] for i in (1, 2)]
    bob_job = bob.submit(gemm_source("b0")).json()["id"]  # newest, but bob was never served
    assert bob.get(bob_job).json()["position"] == 3  # FIFO estimate of the position
    dispatcher.step()
    with app_services(client.app).session_factory() as db:
        assert db.get(Submission, bob_job).claimed_at is not None
        assert all(db.get(Submission, i).claimed_at is None for i in later_ann)
    assert first


def test_limits_in_flight_hour_and_day(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=1, submission_per_hour=2, submission_per_day=3))
    kim = api_for(client, "kim")
    first = kim.submit(gemm_source("1"))
    assert first.status_code == 202
    busy = kim.submit(gemm_source("2"))
    assert busy.status_code == 429 and busy.json()["error"] == "too_many_in_flight"
    assert busy.json()["params"] == {"limit": 1} and "Retry-After" in busy.headers
    factory = app_services(client.app).session_factory
    dispatcher = Dispatcher(factory, DispatcherConfig(gpu=False, lane="t:cpu"))
    assert dispatcher.step()  # first one graded (awaiting_gpu is not "in flight")
    assert kim.submit(gemm_source("3")).status_code == 202
    assert dispatcher.step()
    hourly = kim.submit(gemm_source("4"))
    assert hourly.status_code == 429 and hourly.json()["error"] == "hourly_limit"
    assert 3500 <= int(hourly.headers["Retry-After"]) <= 3601 and hourly.json()["params"]["minutes"] == 60
    with factory() as db:  # age the two submissions past the hour, but inside the day
        for row in db.scalars(select(Submission)):
            row.created_at -= dt.timedelta(hours=2)
        db.commit()
    assert kim.submit(gemm_source("5")).status_code == 202
    assert dispatcher.step()
    daily = kim.submit(gemm_source("6"), headers={**kim.headers, "Accept-Language": "ko"})
    assert daily.status_code == 429 and daily.json()["error"] == "daily_limit"
    assert "하루 제출 한도(3회)" in daily.json()["message"]
    with factory() as db:
        assert db.scalar(select(func.count()).select_from(Submission)) == 3  # refusals stored nothing
    other = api_for(client, "lee")  # limits are per user
    assert other.submit(gemm_source("x")).status_code == 202


def test_simultaneous_posts_cannot_slip_past_the_in_flight_limit(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=1))
    kim = api_for(client, "kim")
    codes = []
    barrier = threading.Barrier(6)

    def post(i):
        barrier.wait()
        codes.append(kim.submit(gemm_source(f"race{i}")).status_code)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [202] + [429] * 5


def _queue_jobs(client, api_for, n_users=4, per_user=5):
    ids = []
    for u in range(n_users):
        who = api_for(client, f"user{u}")
        ids += [who.submit(gemm_source(f"{u}-{i}")).json()["id"] for i in range(per_user)]
    return ids


def test_racing_claims_in_threads_take_each_job_exactly_once(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=10))
    ids = _queue_jobs(client, api_for)
    factory = app_services(client.app).session_factory
    claimed: list[tuple[str, int]] = []
    lock = threading.Lock()
    barrier = threading.Barrier(8)

    def claimer(n):
        me = f"racer-{n}"
        barrier.wait()
        while True:
            with factory() as db:
                job = queue.claim_next(db, lane=f"lane{n}", owner=me, gpu=False, lease_seconds=60)
            if job is None:
                return
            with lock:
                claimed.append((me, job.id))

    threads = [threading.Thread(target=claimer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(i for _, i in claimed) == sorted(ids)  # every job once, none twice
    assert len({owner for owner, _ in claimed}) > 1  # they really competed
    with factory() as db:
        rows = db.scalars(select(Submission)).all()
        assert all(r.attempts == 1 and r.lease_owner == dict((i, o) for o, i in claimed)[r.id] for r in rows)


def test_two_dispatcher_processes_grade_each_job_once(sub_settings, make_client, api_for, tmp_path):
    settings = sub_settings(submission_max_in_flight=10)
    client = make_client(settings)
    ids = _queue_jobs(client, api_for, n_users=3, per_user=4)
    env = dict(os.environ, MKC_DATABASE_URL=settings.resolved_database_url, MKC_DATA_DIR=str(settings.data_dir),
               MKC_DISPATCHER_GPU="off", MKC_GPU="0", MKC_DISPATCHER_POLL_SECONDS="0.05")
    # Different lanes, so both really run at once (one lane would let only one of them work).
    procs = [subprocess.Popen([sys.executable, "-m", "app", "dispatcher", "--once", "--lane", f"proc{n}"],
                              cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for n in range(2)]
    outputs = [p.communicate(timeout=180)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    with app_services(client.app).session_factory() as db:
        rows = db.scalars(select(Submission).where(Submission.id.in_(ids))).all()
    assert all(r.state == "awaiting_gpu" and r.attempts == 1 for r in rows), [(r.id, r.state, r.attempts) for r in rows]
    assert {r.lane for r in rows} == {"proc0", "proc1"} or len(rows) < 4


def test_one_dispatcher_per_lane(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=10))
    factory = app_services(client.app).session_factory
    first = Dispatcher(factory, DispatcherConfig(gpu=False, lane="box:gpu0", lease_seconds=30))
    second = Dispatcher(factory, DispatcherConfig(gpu=False, lane="box:gpu0", lease_seconds=30))
    assert first.hold_lane(force=True) and not second.hold_lane(force=True)
    kim = api_for(client, "kim")
    sub_id = kim.submit(gemm_source()).json()["id"]
    assert not second.step()  # stands by: the lane is held
    assert kim.get(sub_id).json()["state"] == "queued"
    first.stop()  # a clean stop hands the lane over at once
    assert second.hold_lane(force=True) and second.step() and kim.get(sub_id).json()["state"] == "awaiting_gpu"
