"""Cluster mode (MKC_QUEUE=procrastinate) against a real PostgreSQL: the web side defers a job in the
row's own transaction; `python -m app worker` processes grade with a fake GPU (a sleep as long as a
GPU job: CI has no GPU); kill -9 of workers mid-job; exactly one result, XP once, fairness."""
from __future__ import annotations

import json
import time
from collections import defaultdict

import pytest
from sqlalchemy import text

from app.bench.submissions_cluster import Workers, cluster_server, gemm_source, post_burst, wait_all_done
from app.bench.submissions_server import add_users
from app.core.db import make_engine

from tests.conftest import make_settings

from .conftest import GEMM_LAUNCH


def rows(db_url: str, sql: str, **params) -> list:
    engine = make_engine(db_url)
    with engine.connect() as conn:
        found = conn.execute(text(sql), params).all()
    engine.dispose()
    return found


def test_a_job_is_deferred_in_the_row_transaction_with_learner_lock_and_fair_priority(tmp_path, make_client,
                                                                                      api_for, pg_url):
    client = make_client(make_settings(tmp_path, database_url=pg_url, queue="procrastinate", dispatcher_enabled=False,
                                       submission_max_in_flight=3))
    ann, bob = api_for(client, "ann"), api_for(client, "bob")
    a = [ann.submit(gemm_source(f"ann {i}")).json()["id"] for i in range(3)]
    b = bob.submit(gemm_source("bob 0")).json()["id"]
    refused = ann.submit(gemm_source("ann 3"))
    assert refused.status_code == 429  # over the in-flight limit: no row, no job
    jobs = rows(pg_url, "SELECT args->>'submission_id', lock, queueing_lock, priority, status, queue_name "
                        "FROM procrastinate_jobs ORDER BY id")
    assert [(int(j[0]), j[3], j[4], j[5]) for j in jobs] == [
        (a[0], 0, "todo", "grading"), (a[1], -1, "todo", "grading"), (a[2], -2, "todo", "grading"),
        (b, 0, "todo", "grading")]  # bob's first job outranks ann's second and third
    assert len({j[1] for j in jobs[:3]}) == 1 and jobs[3][1] != jobs[0][1]  # lock: one per learner
    assert [j[2] for j in jobs] == [f"submission:{i}" for i in (*a, b)]
    # Same transaction: a row stored and rolled back leaves no job behind.
    from app.accounts.users import find_user
    from app.submissions import intake

    enqueue = client.app.state.submissions.enqueue
    with client.app.state.session_factory() as db:
        user = find_user(db, "bob")
        req = intake.Request_(source=gemm_source("rolled back"), launch=GEMM_LAUNCH)
        db.commit = db.rollback  # the request dies right before its commit
        intake.store(db, user, "gemm", req, intake.Limits(10, 100, 100), enqueue=enqueue)
    assert len(rows(pg_url, "SELECT id FROM procrastinate_jobs")) == 4
    assert len(rows(pg_url, "SELECT id FROM submission")) == 4


def test_cluster_mode_needs_postgresql(tmp_path):
    import subprocess
    import sys

    from app.core.config import PROJECT_ROOT

    env = {"MKC_DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}", "MKC_QUEUE": "procrastinate", "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-m", "app", "migrate"], cwd=PROJECT_ROOT, env=env, check=True, capture_output=True)
    done = subprocess.run([sys.executable, "-m", "app", "worker", "--gpu", "0"], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "needs PostgreSQL" in done.stderr



LEARNERS, PER_LEARNER, WORKERS, GPU_SECONDS = 150, 2, 4, 0.25
RUNNING = ("compiling", "checking", "timing")


def fake_log(path) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = defaultdict(list)
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        runs[entry["tag"].removeprefix("// ")].append(entry)
    return runs


def epoch(naive_utc) -> float:
    import datetime as dt

    return naive_utc.replace(tzinfo=dt.timezone.utc).timestamp()


def test_four_workers_300_jobs_150_learners_two_killed_mid_job(pg_url, tmp_path):
    """PostgreSQL + 4 worker processes; every learner posts two jobs back to back before any worker
    starts; once a third are done, kill -9 two workers that are mid-job and restart one."""
    log = tmp_path / "fake-gpu.log"
    server = cluster_server(tmp_path / "web", pg_url, submission_max_in_flight="2").start()
    workers = Workers(pg_url, tmp_path / "workers", dispatcher_gpu="on", fake_gpu_seconds=str(GPU_SECONDS),
                      fake_gpu_log=str(log), worker_heartbeat_seconds="0.5", worker_stalled_seconds="3")
    try:
        tokens = add_users(pg_url, [f"learner{i:03d}" for i in range(LEARNERS)], token_only=True)
        posted = post_burst(server.url, tokens, PER_LEARNER, source=lambda name, n: gemm_source(f"{name} {n}"))
        ids = [i for *_, i in posted]
        for gpu in range(WORKERS):
            workers.start(gpu)
        deadline = time.monotonic() + 120
        while True:  # a third done, and two different workers each in the middle of a job
            state = rows(pg_url, "SELECT state, lane FROM submission")
            busy = sorted({lane for st, lane in state if st in RUNNING})
            if sum(st == "done" for st, _ in state) >= len(ids) // 3 and len(busy) >= 2:
                break
            assert time.monotonic() < deadline, workers.logs()
            time.sleep(0.02)
        victims = [int(lane.removeprefix("sim:gpu")) for lane in busy[:2]]
        for gpu in victims:
            workers.kill9(gpu)
        orphans = [r[0] for r in rows(pg_url, "SELECT id FROM submission WHERE lane = ANY(:lanes) AND state = ANY(:running)",
                                      lanes=[workers.name(g) for g in victims], running=list(RUNNING))]
        workers.start(victims[0])  # one comes back; the other host stays lost
        wait_all_done(pg_url, ids, timeout=240)
    finally:
        workers.stop_all()
        server.stop()
    assert orphans, "the kill hit no job in flight"

    # Exactly one final result each, graded by a fake GPU run that really happened.
    final = rows(pg_url, "SELECT id, state, verdict, attempts, recorded, claimed_at, started_at, finished_at, lane "
                         "FROM submission ORDER BY id")
    assert len(final) == LEARNERS * PER_LEARNER
    assert all(r.state == "done" and r.verdict == "PASSED" and r.recorded for r in final)
    by_id = {r.id: r for r in final}
    assert all(by_id[i].attempts == 2 for i in orphans)  # handed to another worker after the heartbeat stopped
    assert sum(r.attempts for r in final) == len(final) + len(orphans)
    runs = fake_log(log)
    tag_of = {i: f"{name} {n}" for name, n, i in posted}
    for sub_id, tag in tag_of.items():
        ends = [e for e in runs[tag] if e["ev"] == "end"]
        assert len(ends) == 1, (sub_id, runs[tag])  # one completed run each; the killed runs never ended
    assert "wait again" in workers.logs(tail=10**7)  # retry_stalled put the orphans back in the queue

    # XP once, one 'graded' event per submission.
    per_sub = rows(pg_url, "SELECT dedupe, kind, COUNT(*) FROM event WHERE source = 'grader' AND kind IN "
                           "('exercise_attempted', 'exercise_passed') GROUP BY dedupe, kind")
    assert len(per_sub) == 2 * len(final) and all(n == 1 for *_, n in per_sub)
    xp = rows(pg_url, "SELECT user_id, COUNT(*) FROM xp_entry WHERE source = 'exercise_pass' AND NOT voided "
                      "GROUP BY user_id")
    assert len(xp) == LEARNERS and all(n == 1 for _, n in xp)

    # Per learner: the second job started only after the first was finished.
    first_start = {tag: min(e["t"] for e in entries if e["ev"] == "start") for tag, entries in runs.items()}
    for name in tokens:
        job0 = by_id[next(i for n_, k, i in posted if n_ == name and k == 0)]
        assert first_start[f"{name} 1"] >= epoch(job0.finished_at) - 0.01, name

    # Fairness: all first jobs start before any second job. The only exception procrastinate allows:
    # a fetch skips rows another worker's fetch holds locked (SKIP LOCKED), so at most WORKERS-1
    # second jobs may start alongside the very last first jobs.
    last_first = max(first_start[f"{name} 0"] for name in tokens)
    early_second = [name for name in tokens if first_start[f"{name} 1"] < last_first]
    assert len(early_second) <= WORKERS - 1, early_second

    # One timed job at a time per worker process.
    spans = defaultdict(list)
    for entries in runs.values():
        for e in entries:
            spans[e["pid"]].append((e["t"], e["ev"]))
    for pid, events in spans.items():
        events.sort()
        depth = 0
        for _, ev in events:
            depth += 1 if ev == "start" else -1
            assert depth <= 1, pid
