"""Hardening tests reuse the account helpers (an app on a real SQLite file, signed-in clients), and races
between processes run against a live server with two uvicorn workers."""
import pytest

from app.bench.submissions_server import Server
from tests.accounts.conftest import app, new_client, user_client  # noqa: F401  (fixtures)


@pytest.fixture
def two_workers(tmp_path, db_url):
    """A live server of two uvicorn workers, on a SQLite file and on PostgreSQL (``db_url``)."""
    srv = Server(tmp_path / "srv", workers=2, database_url=db_url, dispatcher_enabled="false").start()
    yield srv
    srv.stop()
