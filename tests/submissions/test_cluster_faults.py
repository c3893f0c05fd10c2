"""Cluster mode's fault matrix, on a real PostgreSQL with `python -m app worker` processes (a fake
GPU: CI has none): no job is stranded by a worker without a GPU, a GPU that disappears, a grader's
re-run, or a row that lost its job."""
from __future__ import annotations

import json
import logging
import time

from app.bench.submissions_cluster import Workers, cluster_server, gemm_source, post_burst, wait_all_done
from app.bench.submissions_server import add_users
from app.core.services import app_services
from tests.conftest import make_settings

from .test_cluster import fake_log, rows


def test_a_worker_without_a_gpu_refuses_to_start_and_takes_no_job(pg_url, tmp_path):
    server = cluster_server(tmp_path / "web", pg_url, submission_max_in_flight="2").start()
    workers = Workers(pg_url, tmp_path / "workers", dispatcher_gpu="on", fake_gpu_seconds="0.1")
    real_engine = Workers(pg_url, tmp_path / "no-gpu", grade=None, compile_first=None)
    try:
        tokens = add_users(pg_url, ["ann", "bob", "cid"], token_only=True)
        ids = [i for *_, i in post_burst(server.url, tokens, 2, source=lambda name, n: gemm_source(f"{name} {n}"))]
        # The real engine on a host without GPU 99 (no GPU at all on CI): it must not start.
        proc = real_engine.start(99)
        assert proc.wait(120) == 3, real_engine.logs()
        assert "no usable GPU 99" in real_engine.logs() and "--no-gpu" in real_engine.logs()
        # Untouched: six rows waiting, each with its compile job waiting.
        assert sorted(r[0] for r in rows(pg_url, "SELECT state FROM submission")) == ["queued"] * 6
        assert [tuple(r) for r in rows(pg_url, "SELECT queue_name, status, COUNT(*) FROM procrastinate_jobs "
                                               "GROUP BY queue_name, status")] == [("compile", "todo", 6)]
        workers.start(0)  # a worker with a (fake) GPU grades all of them
        wait_all_done(pg_url, ids, timeout=120)
    finally:
        workers.stop_all()
        server.stop()
    assert [r[0] for r in rows(pg_url, "SELECT verdict FROM submission")] == ["PASSED"] * 6


def test_a_gpu_lost_mid_job_never_leaves_it_awaiting_a_gpu(pg_url, tmp_path):
    """The engine answers "no GPU" for a job that compiled (the device went away): the row waits again
    as queued with its job, that worker exits non-zero, and the next worker with a GPU grades it."""
    log = tmp_path / "fake-gpu.log"
    server = cluster_server(tmp_path / "web", pg_url).start()
    gone = Workers(pg_url, tmp_path / "gone", grade="app.bench.fake_gpu:grade_gpu_gone", dispatcher_gpu="on",
                   fake_gpu_log=str(log))
    good = Workers(pg_url, tmp_path / "good", dispatcher_gpu="on", fake_gpu_seconds="0.1", fake_gpu_log=str(log))
    try:
        tokens = add_users(pg_url, ["ann"], token_only=True)
        [(_, _, sub_id)] = post_burst(server.url, tokens, 1, source=lambda name, n: gemm_source("lost"))
        proc = gone.start(0)
        assert proc.wait(120) == 3, gone.logs()
        state = rows(pg_url, "SELECT state, verdict FROM submission WHERE id = :id", id=sub_id)
        assert [tuple(r) for r in state] == [("queued", None)]
        assert [tuple(r) for r in rows(pg_url, "SELECT queue_name, status FROM procrastinate_jobs")] == [
            ("grading", "todo")]
        good.start(1)
        wait_all_done(pg_url, [sub_id], timeout=120)
    finally:
        good.stop_all()
        server.stop()
    assert [tuple(r) for r in rows(pg_url, "SELECT state, verdict FROM submission")] == [("done", "PASSED")]
    assert [e["ev"] for e in fake_log(log)["lost"]] == ["compile", "compiled", "no-gpu", "start", "end"]


def test_a_graders_rerun_in_cluster_mode_is_graded(pg_url, tmp_path):
    import httpx

    log = tmp_path / "fake-gpu.log"
    server = cluster_server(tmp_path / "web", pg_url).start()
    workers = Workers(pg_url, tmp_path / "workers", dispatcher_gpu="on", fake_gpu_seconds="0.1", fake_gpu_log=str(log))
    try:
        tokens = add_users(pg_url, ["ann"], token_only=True)
        grader = add_users(pg_url, ["gina"], role="grader", token_only=True)["gina"]
        [(_, _, sub_id)] = post_burst(server.url, tokens, 1, source=lambda name, n: gemm_source("again"))
        workers.start(0)
        wait_all_done(pg_url, [sub_id], timeout=120)
        with httpx.Client(base_url=server.url, timeout=30) as http:
            answer = http.post(f"/api/graders/submissions/{sub_id}/rerun", json={"reason": "new reference"},
                               headers={"Authorization": f"Bearer {grader}"})
        assert answer.status_code == 201, answer.text
        wait_all_done(pg_url, [sub_id], timeout=120)
    finally:
        workers.stop_all()
        server.stop()
    assert [e["ev"] for e in fake_log(log)["again"]].count("end") == 2  # graded twice: once, then the re-run
    assert [tuple(r) for r in rows(pg_url, "SELECT state, verdict FROM submission")] == [("done", "PASSED")]


def test_a_rerun_defers_its_job_in_the_same_transaction(tmp_path, make_client, api_for, pg_url):
    from .conftest import add_user

    client = make_client(make_settings(tmp_path, database_url=pg_url, queue="procrastinate", dispatcher_enabled=False))
    ann = api_for(client, "ann")
    sub_id = ann.submit(gemm_source("x")).json()["id"]
    _finish_by_hand(pg_url, sub_id)
    grader = add_user(client.app, "gina", "grader")
    answer = client.post(f"/api/graders/submissions/{sub_id}/rerun", json={"reason": "r"},
                         headers={"Authorization": f"Bearer {grader}"})
    assert answer.status_code == 201, answer.text
    jobs = rows(pg_url, "SELECT queueing_lock, status, queue_name FROM procrastinate_jobs")
    assert [tuple(j) for j in jobs] == [(f"submission:{sub_id}", "todo", "compile")]
    assert rows(pg_url, "SELECT state FROM submission")[0][0] == "queued"


def _finish_by_hand(pg_url: str, sub_id: int) -> None:
    """The row graded and its job gone, as a worker leaves them."""
    from sqlalchemy import text

    from app.core.db import make_engine

    engine = make_engine(pg_url)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM procrastinate_jobs"))
        conn.execute(text("UPDATE submission SET state = 'done', verdict = 'PASSED', result = :r, recorded = true "
                          "WHERE id = :id"), {"id": sub_id, "r": json.dumps({"verdict": "PASSED"})})
    engine.dispose()


def test_rows_waiting_without_a_job_are_repaired_by_reconciliation(tmp_path, make_client, api_for, pg_url, caplog):
    from sqlalchemy import text

    from app.cluster.jobs import Enqueuer
    from app.cluster.reconcile import repair, stranded
    from app.core.db import make_engine

    client = make_client(make_settings(tmp_path, database_url=pg_url, queue="procrastinate", dispatcher_enabled=False,
                                       submission_max_in_flight=3))
    ann, bob = api_for(client, "ann"), api_for(client, "bob")
    a = ann.submit(gemm_source("a")).json()["id"]
    b = bob.submit(gemm_source("b")).json()["id"]
    c = bob.submit(gemm_source("c")).json()["id"]
    engine = make_engine(pg_url)
    with engine.begin() as conn:  # a's job failed, b's was deleted by hand while b was running; c is fine
        conn.execute(text("UPDATE procrastinate_jobs SET status = 'failed' WHERE queueing_lock = :l"),
                     {"l": f"submission:{a}"})
        conn.execute(text("DELETE FROM procrastinate_jobs WHERE queueing_lock = :l"), {"l": f"submission:{b}"})
        conn.execute(text("UPDATE submission SET state = 'compiling', lease_owner = 'gone' WHERE id = :id"), {"id": b})
    session_factory = app_services(client.app).session_factory
    with session_factory() as db:
        assert stranded(db, grace_seconds=30) == []  # just written: given a moment
        assert stranded(db, grace_seconds=0) == [(a, "queued"), (b, "compiling")]
    with caplog.at_level(logging.WARNING, logger="app.cluster.reconcile"), session_factory() as db:
        assert repair(db, Enqueuer(pg_url), grace_seconds=0) == [a, b]
        assert stranded(db, grace_seconds=0) == []
    assert f"submission {b} was compiling without a job" in caplog.text
    assert f"submission {a} was queued without a job" in caplog.text
    jobs = rows(pg_url, "SELECT queueing_lock FROM procrastinate_jobs WHERE status = 'todo' ORDER BY id")
    assert [j[0] for j in jobs] == [f"submission:{c}", f"submission:{a}", f"submission:{b}"]
    assert [tuple(r) for r in rows(pg_url, "SELECT id, state, lease_owner FROM submission ORDER BY id")] == [
        (a, "queued", None), (b, "queued", None), (c, "queued", None)]
    engine.dispose()


RUNNING = ("compiling", "checking", "timing")


def _wait_for(pg_url: str, sql: str, until: float, what: str, **params) -> None:
    while not rows(pg_url, sql, **params):
        assert time.monotonic() < until, what
        time.sleep(0.05)


def test_postgresql_restarted_mid_grade_and_down_15_s_loses_and_fails_no_job(tmp_path):
    """A `pg_ctl restart -m fast` while jobs are on the GPU, then PostgreSQL stopped for 15 s while
    another job is on the GPU: every job ends PASSED (none UNAVAILABLE because of our database), each
    worker is still running (or exited non-zero for its supervisor); during the outage the web
    answers liveness 200, readiness 503 and every request that needs the database 503, in the
    reader's language, never 500."""
    import httpx

    from tests.pg import start_server

    pg = start_server()  # our own server: this test stops it
    server = workers = None
    try:
        url = pg.create_database("outage")
        server = cluster_server(tmp_path / "web", url).start()
        workers = Workers(url, tmp_path / "workers", dispatcher_gpu="on", fake_gpu_seconds="2.0",
                          worker_heartbeat_seconds="1", worker_stalled_seconds="10")
        tokens = add_users(url, [f"l{i}" for i in range(8)], token_only=True)
        ids = [i for *_, i in post_burst(server.url, tokens, 1, source=lambda name, n: gemm_source(name))]
        workers.start(0)
        workers.start(1)
        # both up (a worker that meets the fault while it starts exits non-zero for its supervisor)
        _wait_for(url, "SELECT 1 FROM grading_worker HAVING COUNT(*) = 2", time.monotonic() + 120, workers.logs())
        on_gpu = "SELECT id FROM submission WHERE state IN ('checking', 'timing')"
        _wait_for(url, on_gpu, time.monotonic() + 120, workers.logs())
        pg.restart()
        _wait_for(url, "SELECT 1 FROM submission WHERE state = 'done' HAVING COUNT(*) >= 3", time.monotonic() + 120,
                  workers.logs())
        _wait_for(url, on_gpu, time.monotonic() + 120, workers.logs())
        pg.pause()
        down_at = time.monotonic()
        token = tokens["l0"]
        with httpx.Client(base_url=server.url, timeout=30) as http:
            live = http.get("/healthz")
            ready = http.get("/readyz")
            api = http.get(f"/api/submissions/{ids[0]}?lang=ko", headers={"Authorization": f"Bearer {token}"})
            http.cookies.set("mkc_session", "a-session-the-database-must-check")
            page = http.get("/ko/profile", headers={"Authorization": f"Bearer {token}"})
        time.sleep(max(0.0, 15 - (time.monotonic() - down_at)))
        pg.resume()
        wait_all_done(url, ids, timeout=240)
        with httpx.Client(base_url=server.url, timeout=30) as http:
            ready_again = http.get("/readyz").json()
        alive = {gpu: proc.poll() for gpu, proc in workers.procs.items()}
        final = [tuple(r) for r in rows(url, "SELECT state, verdict FROM submission")]
    finally:
        if workers is not None:
            # A drain is bounded; 30 s keeps this test inside the per-test timeout: a worker that does
            # not drain fails it (below, with its stacks from SIGUSR1) instead of ending the whole run.
            workers.stop_all(timeout=30)
        if server is not None:
            server.stop()
        pg.stop()
    assert workers.drain_timeouts == [], workers.logs(tail=20000)
    assert (live.status_code, live.json()) == (200, {"ok": True})
    assert (ready.status_code, ready.json()) == (503, {"ok": False, "database": "unreachable"})
    assert api.status_code == 503 and api.json()["error"] == "unavailable", api.text
    assert "데이터베이스" in api.json()["message"] and api.headers["retry-after"] == "30"
    assert page.status_code in (503, 401, 303), page.text[:300]  # never a 500
    assert final == [("done", "PASSED")] * 8, workers.logs(tail=20000)
    assert all(rc is None or rc != 0 for rc in alive.values()), alive
    assert ready_again["ok"] is True and ready_again["gpu_workers"] == 2, ready_again
    assert ready_again["workers"] == {"0": ["sim:gpu0"], "1": ["sim:gpu1"]}, ready_again


def _samples(text_: str) -> dict[str, float]:
    out = {}
    for line in text_.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            out[name] = float(value)
    return out


def test_metrics_readiness_and_queue_after_a_few_graded_jobs(pg_url, tmp_path):
    """/metrics (from an allowed address) after three graded jobs; `python -m app queue` names the
    worker and, once it is gone, warns that no GPU worker is alive and that it went stale."""
    import os
    import subprocess
    import sys

    import httpx

    from app.core.config import PROJECT_ROOT

    server = cluster_server(tmp_path / "web", pg_url, metrics_allow="127.0.0.1").start()
    workers = Workers(pg_url, tmp_path / "workers", dispatcher_gpu="on", fake_gpu_seconds="0.2",
                      worker_heartbeat_seconds="0.5")
    queue_env = dict(os.environ, MKC_DATABASE_URL=pg_url, MKC_WORKER_STALLED_SECONDS="3")

    def queue_cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "app", "queue", *args], cwd=PROJECT_ROOT, env=queue_env,
                              capture_output=True, text=True, timeout=60)

    try:
        tokens = add_users(pg_url, ["ann", "bob", "cid"], token_only=True)
        ids = [i for *_, i in post_burst(server.url, tokens, 1, source=lambda name, n: gemm_source(name))]
        workers.start(0)
        wait_all_done(pg_url, ids, timeout=120)
        with httpx.Client(base_url=server.url, timeout=30) as http:
            scraped = http.get("/metrics")
            ready = http.get("/readyz").json()
        running = queue_cli()
        workers.kill9(0)  # its row stays: the heartbeat stops
        time.sleep(4)
        gone = json.loads(queue_cli("--json").stdout)
    finally:
        workers.stop_all()
        server.stop()
    assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
    m = _samples(scraped.text)
    assert m['mkc_submissions{state="done"}'] == 3 and m['mkc_submissions{state="queued"}'] == 0
    assert m['mkc_submissions_graded{verdict="PASSED"}'] == 3
    assert m["mkc_submission_gpu_seconds_gcount"] == 3 and m['mkc_submission_gpu_seconds_bucket{le="0.1"}'] == 0
    assert m['mkc_submission_gpu_seconds_bucket{le="+Inf"}'] == 3
    assert m["mkc_submission_wait_seconds_gcount"] == 3 and m["mkc_submission_compile_seconds_gcount"] == 3
    assert m['mkc_workers_live{gpu="0"}'] == 1
    assert 'mkc_worker_heartbeat_age_seconds{gpu="0",name="sim:gpu0"}' in m
    assert m['mkc_http_request_duration_seconds_count{group="api/exercises",method="POST"}'] == 3
    assert ready["workers"] == {"0": ["sim:gpu0"]} and ready["warnings"] == []
    assert running.returncode == 0 and "sim:gpu0" in running.stdout and "GPU 0" in running.stdout, running
    assert "WARNING" not in running.stdout, running.stdout
    assert [w["name"] for w in gone["workers"]] == ["sim:gpu0"] and gone["workers"][0]["live"] is False
    assert "no live GPU worker" in gone["warnings"][0] and "stale worker sim:gpu0" in gone["warnings"][1], gone


def test_metrics_refuses_an_address_not_allowed_unless_it_carries_the_token(tmp_path, make_client):
    client = make_client(make_settings(tmp_path, metrics_token="scrape-me", metrics_allow="10.0.0.0/8"))
    assert client.get("/metrics").status_code == 403  # the test client is not in 10.0.0.0/8
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 403
    answer = client.get("/metrics", headers={"Authorization": "Bearer scrape-me"})
    assert answer.status_code == 200 and 'mkc_submissions{state="queued"} 0.0' in answer.text
    assert client.get("/healthz").json() == {"ok": True}
    ready = client.get("/readyz").json()
    assert (ready["ok"], ready["database"], ready["mode"]) == (True, "ok", "one box")


def test_two_bombers_cannot_hold_back_ten_honest_learners(pg_url, tmp_path):
    """Two learners keep submitting compile bombs (each burns 6 s of a compile slot, then COMPILE_TIMEOUT);
    once each has had one timed out, ten honest learners submit two kernels each. The stated bound
    (README "Running a class"): learners whose compile timed out this hour share at most slots - 1 of a
    worker's slots, so an honest compile no longer waits for a bomb: every honest compile starts within
    half a bomb's time of its post (it waits only for the honest compiles ahead of it). A held-back
    bomber is told why and until when, in their language."""
    import threading

    import httpx

    bomb_seconds = 6.0
    log = tmp_path / "fake-gpu.log"
    server = cluster_server(tmp_path / "web", pg_url, submission_max_in_flight="1", submission_per_hour="100",
                            compile_budget_seconds="1000").start()
    workers = Workers(pg_url, tmp_path / "workers", dispatcher_gpu="on", fake_gpu_seconds="0.05",
                      fake_bomb_seconds=str(bomb_seconds), fake_gpu_log=str(log), compile_budget_seconds="1000",
                      compile_slots="2")
    honest = [f"honest{i}" for i in range(10)]
    stop = threading.Event()
    posted_at: dict[str, float] = {}
    held_back: list[dict] = []
    try:
        tokens = add_users(pg_url, ["bomber0", "bomber1", *honest], token_only=True)
        workers.start(0)

        def submit(http, name, tag):
            answer = http.post("/api/exercises/gemm/submissions", headers={"Authorization": f"Bearer {tokens[name]}"},
                               json={"source": gemm_source(tag), "launch": {"block": [32, 32, 1], "tile": [32, 32],
                                                                            "smem": 0}})
            assert answer.status_code == 202, answer.text
            return answer.json()["id"]

        def wait_done(http, name, sub_id):
            while not stop.is_set():
                view = http.get(f"/api/submissions/{sub_id}?lang=ko",
                                headers={"Authorization": f"Bearer {tokens[name]}"}).json()
                if view["state"] == "done":
                    return
                # the first view of each reason (a first bomb waits as a long compile, a later one cooling down)
                if view["waiting_reason"] and view["waiting_reason"] not in {v["waiting_reason"] for v in held_back}:
                    held_back.append(view)
                time.sleep(0.05)

        def bomber(name):
            with httpx.Client(base_url=server.url, timeout=30) as http:
                n = 0
                while not stop.is_set():
                    wait_done(http, name, submit(http, name, f"compile bomb {name} {n}"))
                    n += 1

        def learner(name):
            with httpx.Client(base_url=server.url, timeout=30) as http:
                for n in range(2):
                    tag = f"{name} {n}"
                    posted_at[tag] = time.time()
                    wait_done(http, name, submit(http, name, tag))

        bombers = [threading.Thread(target=bomber, args=(f"bomber{i}",), daemon=True) for i in range(2)]
        for thread in bombers:
            thread.start()
        deadline = time.monotonic() + 90
        while len(rows(pg_url, "SELECT id FROM submission WHERE result LIKE '%COMPILE_TIMEOUT%'")) < 2:
            assert time.monotonic() < deadline, workers.logs()
            time.sleep(0.1)
        learners = [threading.Thread(target=learner, args=(name,)) for name in honest]
        for thread in learners:
            thread.start()
        for thread in learners:
            thread.join(120)
    finally:
        stop.set()
        workers.stop_all()
        server.stop()
    runs = fake_log(log)
    waits = {tag: min(e["t"] for e in runs[tag] if e["ev"] == "compile") - posted_at[tag] for tag in posted_at}
    print(f"honest compile waits: max {max(waits.values()):.2f} s, bomb {bomb_seconds} s")
    assert len(waits) == 20 and all(e["ev"] != "no-gpu" for entries in runs.values() for e in entries)
    assert max(waits.values()) <= bomb_seconds / 2, sorted(waits.values())
    assert [tuple(r) for r in rows(pg_url, "SELECT COUNT(*) FROM submission s JOIN \"user\" u ON u.id = s.user_id "
                                           "WHERE u.username LIKE 'honest%' AND s.verdict = 'PASSED'")] == [(20,)]
    # A first bomb waits as a long compile, a later one of a cooling learner cooling down (when that wait falls
    # in this window): both say, in Korean, that they wait for a slot the other learners leave free.
    assert {v["waiting_reason"] for v in held_back} <= {"compile_long", "compile_cooldown"}, held_back
    assert "compile_long" in {v["waiting_reason"] for v in held_back}, held_back
    assert all("다른 학습자가 비워 둔 컴파일 자리" in v["state_text"] and v["waiting_until"].endswith("Z")
               for v in held_back), held_back


def test_a_learner_over_the_compile_budget_is_told_why_and_until_when(tmp_path, make_client, api_for):
    """The compile stage holds a row back (app/cluster/compile.py); the learner's view says so in their
    language, with the time (UTC) and the minutes left."""
    import datetime as dt

    from sqlalchemy import update

    from app.submissions.models import Submission

    client = make_client(make_settings(tmp_path, dispatcher_enabled=False))
    ann = api_for(client, "ann")
    sub_id = ann.submit(gemm_source("budget")).json()["id"]
    until = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0) + dt.timedelta(minutes=12, seconds=30)
    with app_services(client.app).session_factory() as db:
        db.execute(update(Submission).where(Submission.id == sub_id).values(waiting_reason="compile_budget",
                                                                            waiting_until=until))
        db.commit()
    en = ann.get(sub_id, params={"lang": "en"}).json()
    ko = ann.get(sub_id, params={"lang": "ko"}).json()
    hhmmss = until.strftime("%H:%M:%S")
    assert en["waiting_reason"] == "compile_budget" and en["waiting_until"] == until.isoformat() + "Z"
    assert en["state_text"] == (f"Waiting: you used this hour's compile time, so your next compile starts in about "
                                f"13 min, at {hhmmss} UTC. Submissions of other learners are not slowed.")
    assert ko["state_text"] == (f"이번 한 시간 동안 쓸 수 있는 컴파일 시간을 다 써서 기다리고 있어요. 약 13분 뒤, "
                                f"UTC {hhmmss}에 다음 컴파일이 시작돼요. 다른 학습자의 제출은 느려지지 않아요.")


def test_an_idle_worker_logs_no_line_per_maintenance_run():
    """The periodic maintenance tasks run every few seconds on every worker; their per-run INFO lines are
    dropped, their warnings and every grading job's lines are kept."""
    from app.cluster.worker import quiet_maintenance

    def record(name: str, level: int, message: str, **extra) -> logging.LogRecord:
        made = logging.LogRecord(name, level, __file__, 1, message, None, None)
        made.__dict__.update(extra)
        return made

    deferred = "Deferred 1 job"  # procrastinate names the job only in the record's extra fields
    assert not quiet_maintenance(record("procrastinate.jobs", logging.INFO, deferred,
                                        jobs=[{"task_name": "mkc.retry_stalled", "id": 7}]))
    assert quiet_maintenance(record("procrastinate.jobs", logging.INFO, deferred,
                                    jobs=[{"task_name": "mkc.compile_submission", "id": 8}]))

    assert not quiet_maintenance(record("procrastinate.worker", logging.INFO,
                                        "Starting job mkc.retry_stalled[7](timestamp=1)"))
    assert not quiet_maintenance(record("procrastinate.worker", logging.INFO,
                                        "Job mkc.reconcile[8](timestamp=1) ended with status: Success, lasted 0.01 s"))
    assert quiet_maintenance(record("procrastinate.worker", logging.WARNING, "Job mkc.retry_stalled[9] failed"))
    assert quiet_maintenance(record("procrastinate.worker", logging.INFO,
                                    "Starting job mkc.grade_submission[10](submission_id=3)"))
    assert quiet_maintenance(record("app.cluster.jobs", logging.INFO, "mkc.retry_stalled requeued 2"))


def test_a_worker_that_gives_up_on_the_database_exits_non_zero(tmp_path):
    """PostgreSQL stays away longer than MKC_WORKER_DATABASE_PATIENCE_SECONDS: the worker exits 4 (its
    supervisor restarts it), never 0."""
    from tests.pg import start_server

    pg = start_server()
    workers = None
    try:
        url = pg.create_database("gone")
        cluster_server(tmp_path / "web", url).migrate()
        workers = Workers(url, tmp_path / "workers", dispatcher_gpu="on", worker_heartbeat_seconds="0.5",
                          worker_database_patience_seconds="3")
        proc = workers.start(0)
        deadline = time.monotonic() + 60
        while not rows(url, "SELECT name FROM grading_worker"):
            assert time.monotonic() < deadline and proc.poll() is None, workers.logs()
            time.sleep(0.2)
        pg.pause()
        assert proc.wait(90) == 4, workers.logs()
    finally:
        if workers is not None:
            workers.stop_all()
        pg.stop()
    assert "the database did not answer for 3 s" in workers.logs()


def test_a_stalled_job_whose_submission_has_another_waiting_job_does_not_block_the_others(
        tmp_path, make_client, api_for, pg_url):
    """The database cut a compile job's bookkeeping after its compile had deferred the grading job: the
    stalled compile job cannot go back to the queue (the grading job holds the submission's queueing
    lock). It is removed and every other stalled job still goes back; before, one such job stopped
    retry_stalled for good and the other jobs of dead workers were never retried."""
    import asyncio
    import concurrent.futures
    from types import SimpleNamespace

    from sqlalchemy import text

    from app.cluster.jobs import GRADE_TASK, RETRY_TASK, Enqueuer, make_app
    from app.core.db import make_engine
    from app.submissions.models import Submission

    client = make_client(make_settings(tmp_path, database_url=pg_url, queue="procrastinate", dispatcher_enabled=False))
    ann, bob = api_for(client, "ann"), api_for(client, "bob")
    a = ann.submit(gemm_source("a")).json()["id"]
    b = bob.submit(gemm_source("b")).json()["id"]
    engine = make_engine(pg_url)
    with engine.begin() as conn:  # both compile jobs were running on workers that are gone
        conn.execute(text("UPDATE procrastinate_jobs SET status = 'doing', worker_id = NULL"))
    with app_services(client.app).session_factory() as db:  # a's compile had finished: its grading job waits
        Enqueuer(pg_url)(db, db.get(Submission, a), task=GRADE_TASK, priority=0)
        db.commit()
    requeued: list[int] = []

    async def retry_stalled() -> int:
        app = make_app(pg_url)
        async with app.open_async():
            context = SimpleNamespace(app=app, job=SimpleNamespace(id=-1),
                                      additional_context={"stalled_seconds": 30, "requeue": requeued.extend})
            return await app.tasks[RETRY_TASK].func(context, timestamp=0)

    # A loop of its own in a thread of its own: when the whole suite runs, the browser tests' session-wide
    # Playwright (sync API) keeps an event loop running in this thread, and asyncio.run() refuses then.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        assert pool.submit(asyncio.run, retry_stalled()).result(timeout=60) == 2
    jobs = rows(pg_url, "SELECT queueing_lock, status, task_name FROM procrastinate_jobs ORDER BY id")
    assert [tuple(j) for j in jobs] == [(f"submission:{b}", "todo", "mkc.compile_submission"),
                                        (f"submission:{a}", "todo", "mkc.grade_submission")]
    assert sorted(requeued) == sorted([a, b])
    engine.dispose()
