"""Cluster mode's fault matrix, on a real PostgreSQL with `python -m app worker` processes (a fake
GPU: CI has none): no job is stranded by a worker without a GPU, a GPU that disappears, a grader's
re-run, or a row that lost its job."""
from __future__ import annotations

import json
import logging

from app.bench.submissions_cluster import Workers, cluster_server, gemm_source, post_burst, wait_all_done
from app.bench.submissions_server import add_users
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
    session_factory = client.app.state.session_factory
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
