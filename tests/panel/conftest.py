"""Fixtures for the panel and graders tests (tests/graders/conftest.py re-uses these)."""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.factory import create_app
from tests.conftest import make_settings


@pytest.fixture
def app_client(tmp_path, monkeypatch):
    """A running app (lifespan, migrations) on a temp SQLite file; the dispatcher compiles with the
    real sandboxed NVRTC and, with no GPU here, ends in compile errors or awaiting_gpu."""
    for name in ("MKC_DATABASE_URL", "MKC_DATA_DIR", "MKC_DISPATCHER_ENABLED", "MKC_GPU"):
        monkeypatch.delenv(name, raising=False)
    opened = []

    def start(**overrides):
        values = dict(dispatcher_enabled=True, dispatcher_gpu="off", dispatcher_poll_seconds=0.05,
                      submission_lease_seconds=30.0, submission_max_in_flight=3)
        values.update(overrides)
        client = TestClient(create_app(make_settings(tmp_path, **values)), raise_server_exceptions=False)
        client.__enter__()
        opened.append(client)
        return client

    yield start
    for client in reversed(opened):
        client.__exit__(None, None, None)
