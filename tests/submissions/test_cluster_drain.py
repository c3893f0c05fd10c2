"""A cluster worker (`python -m app worker`, MKC_QUEUE=procrastinate) drains on SIGTERM while PostgreSQL
is stopped: it exits within a bound (an operator's `systemctl stop` must not hang on a database that is
gone), and its job is not lost: once the database is back another worker grades it, once."""
from __future__ import annotations

import time

import pytest

from app.bench.submissions_cluster import Workers, gemm_source, wait_all_done
from tests.conftest import make_settings

from .test_cluster import fake_log, rows
from .test_cluster_faults import _wait_for


@pytest.mark.parametrize("job_in_hand", [True, False], ids=["job-on-the-gpu", "idle"])
def test_a_worker_sigterm_while_postgresql_is_stopped_exits_and_loses_no_job(tmp_path, make_client, api_for,
                                                                              job_in_hand):
    from tests.pg import start_server

    pg = start_server()  # our own server: this test stops it
    workers = None
    log = tmp_path / "fake-gpu.log"
    try:
        url = pg.create_database("drain")
        client = make_client(make_settings(tmp_path / "web", database_url=url, queue="procrastinate",
                                           dispatcher_enabled=False))
        workers = Workers(url, tmp_path / "workers", dispatcher_gpu="on", fake_gpu_seconds="4",
                          fake_gpu_log=str(log), worker_heartbeat_seconds="1", worker_stalled_seconds="3")
        first = workers.start(0)
        _wait_for(url, "SELECT 1 FROM grading_worker", time.monotonic() + 60, workers.logs())
        sub_id = None
        if job_in_hand:
            sub_id = api_for(client, "ann").submit(gemm_source("drained")).json()["id"]
            deadline = time.monotonic() + 60  # its (fake) GPU run started: it ends while the database is away
            while not (log.exists() and "start" in [e["ev"] for e in fake_log(log)["drained"]]):
                assert time.monotonic() < deadline, workers.logs()
                time.sleep(0.05)
        pg.pause()
        time.sleep(1.0)  # the worker meets the outage (idle: its queue connection is lost)
        # Exits at all within 60 s (the default patience for the database is 300 s): the drain is bounded.
        code = workers.drain(0, timeout=60)
        assert workers.drain_timeouts == [], workers.logs(tail=20000)
        assert code == 0 and first.returncode == 0, workers.logs()
        pg.resume()
        if job_in_hand:
            workers.start(1)
            wait_all_done(url, [sub_id], timeout=120)
            final = [tuple(r) for r in rows(url, "SELECT state, verdict FROM submission")]
            # its XP is recorded in a transaction right after the verdict's
            _wait_for(url, "SELECT 1 FROM submission WHERE recorded", time.monotonic() + 60, workers.logs())
            xp = rows(url, "SELECT COUNT(*) FROM xp_entry WHERE source = 'exercise_pass' AND NOT voided")
    finally:
        if workers is not None:
            workers.stop_all()
        pg.stop()
    assert "draining: finishing the job in hand, taking no other" in workers.logs(tail=100000)
    if job_in_hand:
        assert final == [("done", "PASSED")] and [tuple(r) for r in xp] == [(1,)]
        # the drained worker's GPU run ended but its result could not be stored; the second worker's is
        assert [e["ev"] for e in fake_log(log)["drained"]].count("end") == 2
        assert "database unreachable while storing a result" in workers.logs(tail=100000)
