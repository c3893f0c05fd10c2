"""Migrations run once per deployment, never raced by web workers.

Before the fix every uvicorn worker migrated in its lifespan; on a fresh database two of them both
saw "no tables" and one died with "table lesson_view already exists" (about 1 start in 6)."""
from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

import pytest

from app.bench.submissions_server import Server
from app.core.config import PROJECT_ROOT
from app.core.db import make_engine
from app.core.migrate import DatabaseNotMigrated, current_revision, head_revision, require_head, upgrade_to_head


def _migrate_at_barrier(url: str, barrier, errors) -> None:
    engine = make_engine(url)
    barrier.wait()  # every process starts its migration at the same instant
    try:
        upgrade_to_head(engine)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which asserts none happened
        errors.put(f"{type(exc).__name__}: {exc}")
    finally:
        engine.dispose()


def test_concurrent_migrations_of_a_fresh_sqlite_file_are_serialised(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    errors = ctx.Queue()
    for round_ in range(3):
        url = f"sqlite:///{tmp_path / f'fresh{round_}.db'}"
        barrier = ctx.Barrier(4)
        procs = [ctx.Process(target=_migrate_at_barrier, args=(url, barrier, errors)) for _ in range(4)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(120)
            assert proc.exitcode == 0
        engine = make_engine(url)
        assert current_revision(engine) == head_revision()
        engine.dispose()
    found = []
    while not errors.empty():
        found.append(errors.get())
    assert found == []


def test_a_worker_told_not_to_migrate_refuses_an_unmigrated_database(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    with pytest.raises(DatabaseNotMigrated, match="python -m app migrate"):
        require_head(engine)
    upgrade_to_head(engine)
    require_head(engine)  # at head: no error
    engine.dispose()


def test_uvicorn_worker_without_migration_exits_with_the_reason(tmp_path):
    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path / "d"), MKC_DATABASE_URL=f"sqlite:///{tmp_path / 'd' / 'x.db'}",
               MKC_MIGRATE_ON_START="false", MKC_DISPATCHER_ENABLED="false")
    (tmp_path / "d").mkdir()
    result = subprocess.run([sys.executable, "-c", "from fastapi.testclient import TestClient\n"
                             "from app.main import app\n"
                             "with TestClient(app): pass\n"],
                            cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "python -m app migrate" in result.stderr


@pytest.mark.parametrize("migrate_on_start", ["false", "true"])
def test_two_workers_start_on_a_fresh_database(tmp_path, migrate_on_start):
    """The prestart step (Server.migrate, as `serve` does) and, for workers started by hand with
    migrate_on_start, the lock: both start two workers on an empty database without an error."""
    for attempt in range(3):
        server = Server(tmp_path / f"{migrate_on_start}{attempt}", workers=2, dispatcher_enabled="false",
                        migrate_on_start=migrate_on_start)
        try:
            server.start()
        finally:
            server.stop()
        log = server.log.read_text()
        assert "already exists" not in log and "Traceback" not in log, log[-3000:]
