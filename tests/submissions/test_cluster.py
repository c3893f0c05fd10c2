"""Cluster mode (MKC_QUEUE=procrastinate) against a real PostgreSQL: the web side defers a job in the
row's own transaction; `python -m app worker` processes grade with a fake GPU (a sleep as long as a
GPU job: CI has no GPU); kill -9 of workers mid-job; exactly one result, XP once, fairness."""
from __future__ import annotations

import json
import time
from collections import defaultdict

from sqlalchemy import text

from app.bench.submissions_cluster import Workers, cluster_server, gemm_source, post_burst, wait_all_done
from app.bench.submissions_server import add_users
from app.cluster.watch import snapshot
from app.core.db import make_engine
from app.core.services import app_services
from app.submissions.runtime import SubmissionsRuntime
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
        (a[0], 0, "todo", "compile"), (a[1], -1, "todo", "compile"), (a[2], -2, "todo", "compile"),
        (b, 0, "todo", "compile")]  # bob's first job outranks ann's second and third
    assert len({j[1] for j in jobs[:3]}) == 1 and jobs[3][1] != jobs[0][1]  # lock: one per learner
    assert [j[2] for j in jobs] == [f"submission:{i}" for i in (*a, b)]
    # Same transaction: a row stored and rolled back leaves no job behind.
    from app.accounts.users import find_user
    from app.submissions import intake

    enqueue = app_services(client.app).get(SubmissionsRuntime).enqueue
    with app_services(client.app).session_factory() as db:
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

    return naive_utc.replace(tzinfo=dt.UTC).timestamp()


def test_four_workers_300_jobs_150_learners_two_killed_mid_job(pg_url, tmp_path):
    """PostgreSQL + 4 worker processes; every learner posts two jobs back to back before any worker
    starts; once a third are done, kill -9 two workers that are mid-job and restart one."""
    log = tmp_path / "fake-gpu.log"
    server = cluster_server(tmp_path / "web", pg_url, submission_max_in_flight="2").start()
    workers = Workers(pg_url, tmp_path / "workers", dispatcher_gpu="on", fake_gpu_seconds=str(GPU_SECONDS),
                      fake_gpu_log=str(log), worker_heartbeat_seconds="0.5", worker_stalled_seconds="8")
    # 16 missed beats: a worker starved of CPU on a 2-core CI box is not taken for dead
    try:
        tokens = add_users(pg_url, [f"learner{i:03d}" for i in range(LEARNERS)], token_only=True)
        posted = post_burst(server.url, tokens, PER_LEARNER, source=lambda name, n: gemm_source(f"{name} {n}"))
        ids = [i for *_, i in posted]
        for gpu in range(WORKERS):
            workers.start(gpu)
        deadline = time.monotonic() + 120
        while True:  # a third done, and two different workers each in the middle of a job
            state = rows(pg_url, "SELECT state, lane FROM submission")
            # GPU lanes only ("sim:gpuN"): a row being compiled runs on its worker's "sim:gpuN:compile" lane
            busy = sorted({lane for st, lane in state if st in RUNNING and not lane.endswith(":compile")})
            if sum(st == "done" for st, _ in state) >= len(ids) // 3 and len(busy) >= 2:
                break
            assert time.monotonic() < deadline, workers.logs()
            time.sleep(0.02)
        engine = make_engine(pg_url)
        view = snapshot(engine)  # what `python -m app queue` shows an operator now
        engine.dispose()
        assert view["mode"] == "cluster" and view["queued"] > 0 and view["oldest_wait_s"] > 0
        assert len({r["lane"] for r in view["running"]}) >= 2 and len(view["workers"]) >= WORKERS
        victims = [int(lane.removeprefix("sim:gpu")) for lane in busy[:2]]
        killed_pids = {workers.procs[gpu].pid for gpu in victims}
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
        if sub_id not in orphans:
            assert len(ends) == 1, (sub_id, runs[tag])  # one completed run each
        else:  # handed over: one run by the worker that took it; the killed worker's run may have ended
            # just before the kill, its result not yet stored (at most that one)
            assert len([e for e in ends if e["pid"] not in killed_pids]) == 1, (sub_id, runs[tag])
            assert len(ends) <= 2, (sub_id, runs[tag])
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

    # Fairness: all first jobs start before any second job. Two exceptions: a fetch skips rows another
    # worker's fetch holds locked (SKIP LOCKED), so at most WORKERS-1 second jobs may start alongside
    # the very last first jobs; and a first job the kill took from its worker (mid-compile, before any
    # GPU run) waits for the stall to be noticed, while the live workers go on with the second jobs.
    handed_over = {tag_of[r.id] for r in final if r.attempts > 1}
    last_first = max(first_start[f"{name} 0"] for name in tokens if f"{name} 0" not in handed_over)
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


BOMB_SECONDS, SLOTS, BUDGET_SECONDS, BOMBERS = 3.0, 2, 5.0, 3


def test_compile_bombs_cannot_starve_an_honest_learner(pg_url, tmp_path):
    """Three learners keep submitting compile bombs (each burns BOMB_SECONDS of a compile slot and
    ends as COMPILE_TIMEOUT); a fourth submits honest kernels one after another.

    The bound: a learner compiles one job at a time and has at most one waiting (in-flight limit 1), so
    BOMBERS bombs hold at most min(BOMBERS, SLOTS) compile slots, and every slot frees within
    BOMB_SECONDS. An honest job therefore waits at most ceil(BOMBERS / SLOTS) * BOMB_SECONDS for a
    slot, then its own compile and GPU time; a bomb never reaches the GPU. Past
    BUDGET_SECONDS of compile in the hour a bomber's next job waits for the window, so from then on
    bombs cost the honest learner nothing."""
    import math
    import os
    import subprocess
    import sys
    import threading

    import httpx

    from app.core.config import PROJECT_ROOT

    log = tmp_path / "fake-gpu.log"
    server = cluster_server(tmp_path / "web", pg_url, submission_max_in_flight="1", submission_per_hour="100",
                            compile_budget_seconds=str(BUDGET_SECONDS)).start()
    workers = Workers(pg_url, tmp_path / "workers", dispatcher_gpu="on", fake_gpu_seconds="0.2",
                      fake_bomb_seconds=str(BOMB_SECONDS), fake_gpu_log=str(log),
                      compile_budget_seconds=str(BUDGET_SECONDS), compile_slots=str(SLOTS))
    stop = threading.Event()
    try:
        tokens = add_users(pg_url, [f"bomber{i}" for i in range(BOMBERS)] + ["honest"], token_only=True)
        workers.start(0)

        def submit(http, name, source):
            response = http.post("/api/exercises/gemm/submissions", headers={"Authorization": f"Bearer {tokens[name]}"},
                                 json={"source": source, "launch": GEMM_LAUNCH})
            assert response.status_code == 202, response.text
            return response.json()["id"]

        def wait_done(http, name, sub_id, until):
            while not stop.is_set() and time.monotonic() < until:
                view = http.get(f"/api/submissions/{sub_id}", headers={"Authorization": f"Bearer {tokens[name]}"}).json()
                if view["state"] == "done":
                    return view
                time.sleep(0.05)
            return None

        def bomber(name):
            with httpx.Client(base_url=server.url, timeout=30) as http:
                n = 0
                while not stop.is_set():
                    sub_id = submit(http, name, gemm_source(f"compile bomb {name} {n}"))
                    n += 1
                    if wait_done(http, name, sub_id, time.monotonic() + 120) is None:
                        return  # over budget: its job waits for the hour window

        threads = [threading.Thread(target=bomber, args=(f"bomber{i}",), daemon=True) for i in range(BOMBERS)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while len(rows(pg_url, "SELECT id FROM submission WHERE state = 'compiling'")) < min(BOMBERS, SLOTS):
            assert time.monotonic() < deadline, workers.logs()  # the worker is up and the bombs hold the slots
            time.sleep(0.05)
        waits, verdicts = [], []
        with httpx.Client(base_url=server.url, timeout=30) as http:
            for n in range(4):
                posted = time.monotonic()
                view = wait_done(http, "honest", submit(http, "honest", gemm_source(f"honest {n}")), posted + 120)
                waits.append(time.monotonic() - posted)
                verdicts.append(view and view["verdict"])
        queue_cli = subprocess.run([sys.executable, "-m", "app", "queue", "--json"], cwd=PROJECT_ROOT, timeout=60,
                                   env=dict(os.environ, MKC_DATABASE_URL=pg_url), capture_output=True, text=True)
    finally:
        stop.set()
        workers.stop_all()
        server.stop()
    bound = math.ceil(BOMBERS / SLOTS) * BOMB_SECONDS + 4.0  # + honest compile, 0.2 s of GPU, scheduling on 2 loaded cores
    print(f"honest waits {[round(w, 2) for w in waits]} s, bound {bound} s")
    assert verdicts == ["PASSED"] * 4, (verdicts, workers.logs())
    assert max(waits) <= bound, (waits, bound)
    runs = fake_log(log)
    bombs = {tag: entries for tag, entries in runs.items() if tag.startswith("compile bomb")}
    # no GPU; "sliced": a first slice (MKC_COMPILE_SLICE_SECONDS) ran out, then one compile with the full limit
    assert bombs and all(e["ev"] in ("compile", "sliced", "compiled") for entries in bombs.values() for e in entries)
    per_bomber = defaultdict(int)
    for tag, entries in bombs.items():  # compiles with the full limit (each burns BOMB_SECONDS)
        per_bomber[tag.split()[2]] += sum(e["ev"] == "compiled" for e in entries)
    # the budget: compiles start while less than BUDGET_SECONDS were used this hour
    assert all(n <= math.ceil(BUDGET_SECONDS / BOMB_SECONDS) for n in per_bomber.values()), per_bomber
    assert json.loads(queue_cli.stdout)["waiting_for_budget"] >= 1, queue_cli  # a bomber waits for the window
