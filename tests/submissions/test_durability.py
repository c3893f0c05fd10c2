"""Durability: a real uvicorn server, 50 submissions from 5 users, kill -9, restart: all 50 reach
a final state (this machine has no GPU: done for compile errors, awaiting_gpu for the rest)."""
from __future__ import annotations

import time

import httpx
from sqlalchemy import text

from app.bench.submissions_server import Server, add_users
from app.core.db import make_engine

from .conftest import BROKEN_GEMM, GEMM_LAUNCH, gemm_source

SETTINGS = dict(dispatcher_gpu="off", MKC_GPU="0", submission_max_in_flight="10", submission_per_hour="100",
                dispatcher_poll_seconds="0.1", submission_lease_seconds="60")


def counts(db_url: str) -> dict[str, int]:
    engine = make_engine(db_url)
    with engine.connect() as conn:
        rows = dict(conn.execute(text("SELECT state, COUNT(*) FROM submission GROUP BY state")).all())
    engine.dispose()
    return rows


def test_fifty_submissions_survive_kill_minus_nine(tmp_path, db_url):
    server = Server(tmp_path / "srv", database_url=db_url, **SETTINGS).start()
    try:
        tokens = add_users(server.db_url, [f"learner{i}" for i in range(5)])
        expected = {}
        with httpx.Client(base_url=server.url, timeout=30) as http:
            for n in range(50):
                name = f"learner{n % 5}"
                broken = n % 5 == 4  # every fifth is a compile error: final even without a GPU
                source = BROKEN_GEMM + f"// {n}\n" if broken else gemm_source(f"durable {n}")
                response = http.post("/api/exercises/gemm/submissions", json={"source": source, "launch": GEMM_LAUNCH},
                                     headers={"Authorization": f"Bearer {tokens[name]}"})
                assert response.status_code == 202, response.text
                expected[response.json()["id"]] = (name, broken)
        before = counts(server.db_url)
        server.kill9()  # mid-queue: some graded, one maybe compiling, most queued
    finally:
        server.stop()
    assert sum(before.values()) == 50
    assert before.get("queued", 0) > 0, before  # the kill really left work behind

    restarted = Server(tmp_path / "srv", port=server.port, database_url=db_url, **SETTINGS).start()
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            now = counts(restarted.db_url)
            if now.get("done", 0) + now.get("awaiting_gpu", 0) == 50:
                break
            time.sleep(0.25)
        assert now.get("done", 0) + now.get("awaiting_gpu", 0) == 50, now
        with httpx.Client(base_url=restarted.url, timeout=30) as http:
            for sub_id, (name, broken) in expected.items():
                view = http.get(f"/api/submissions/{sub_id}", headers={"Authorization": f"Bearer {tokens[name]}"}).json()
                if broken:
                    assert view["state"] == "done" and view["verdict"] == "COMPILE_ERROR", view
                else:
                    assert view["state"] == "awaiting_gpu" and view["result"]["message"]["code"] == "UNAVAILABLE_NO_GPU"
        engine = make_engine(restarted.db_url)
        with engine.connect() as conn:
            attempts = conn.execute(text("SELECT COUNT(*) FROM event WHERE kind = 'exercise_attempted'")).scalar()
            unrecorded = conn.execute(text("SELECT COUNT(*) FROM submission WHERE state = 'done' AND NOT recorded")).scalar()
        engine.dispose()
        assert attempts == 10 and unrecorded == 0  # each finished submission recorded exactly once
    finally:
        restarted.stop()


def test_two_uvicorn_workers_never_run_two_jobs_at_once_on_one_lane(tmp_path, db_url):
    """Each worker process starts a dispatcher; only the lane holder grades, one job at a time."""
    server = Server(tmp_path / "srv", workers=2, database_url=db_url, **SETTINGS).start()
    try:
        tokens = add_users(server.db_url, [f"worker{i}" for i in range(4)])
        with httpx.Client(base_url=server.url, timeout=30) as http:
            for n in range(16):
                name = f"worker{n % 4}"
                r = http.post("/api/exercises/gemm/submissions", headers={"Authorization": f"Bearer {tokens[name]}"},
                              json={"source": gemm_source(f"two workers {n}"), "launch": GEMM_LAUNCH})
                assert r.status_code == 202, r.text
        deadline = time.monotonic() + 60
        while counts(server.db_url).get("awaiting_gpu", 0) < 16 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert counts(server.db_url) == {"awaiting_gpu": 16}
        engine = make_engine(server.db_url)
        with engine.connect() as conn:
            spans = conn.execute(text("SELECT claimed_at, finished_at, lane FROM submission ORDER BY claimed_at")).all()
            lane_rows = conn.execute(text("SELECT COUNT(*) FROM dispatcher_lane")).scalar()
        engine.dispose()
    finally:
        server.stop()
    assert lane_rows == 1 and len({lane for _, _, lane in spans}) == 1
    for (_, finished, _), (claimed, _, _) in zip(spans, spans[1:], strict=False):
        assert finished <= claimed  # the next job was claimed only after the previous one finished
