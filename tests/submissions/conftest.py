"""Submissions tests: a real app on a real SQLite file and on a real PostgreSQL database, users with API tokens, real HTTP through
TestClient (the whole ASGI stack), the real engine compile (sandboxed NVRTC). Only the GPU run
itself is ever stubbed (``fake_gpu``)."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.core.services import app_services
from app.factory import create_app
from tests.conftest import make_settings
from tests.scrape import first_group

KERNELS = Path(__file__).resolve().parents[2] / "kernels"
GEMM_LAUNCH = {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
PASSWORD = "correct horse battery"


def gemm_source(tag: str = "") -> str:
    """The reference naive GEMM; a comment makes each copy a new compile (no cubin cache hit)."""
    return (KERNELS / "gemm" / "naive.cu").read_text() + (f"\n// {tag}\n" if tag else "")


BROKEN_GEMM = ('extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)\n'
               "{\n    C[0] = A[0] +* ;\n}\n")


@pytest.fixture
def sub_settings(tmp_path, monkeypatch, db_url):
    """Settings builder; every test using it runs twice: SQLite and PostgreSQL (``db_url``)."""
    for name in ("MKC_DATABASE_URL", "MKC_DATA_DIR", "MKC_DISPATCHER_ENABLED", "MKC_GPU"):
        monkeypatch.delenv(name, raising=False)

    def build(**overrides):
        values = dict(dispatcher_enabled=False, dispatcher_gpu="off", dispatcher_poll_seconds=0.05,
                      submission_lease_seconds=30.0, submission_max_in_flight=1, database_url=db_url)
        values.update(overrides)
        return make_settings(tmp_path, **values)
    return build


class Api:
    """One signed-in API caller (Bearer token) on a shared TestClient."""

    def __init__(self, client: TestClient, username: str, token: str):
        self.client, self.username, self.token = client, username, token
        self.headers = {"Authorization": f"Bearer {token}"}

    def submit(self, source: str, launch=GEMM_LAUNCH, exercise: str = "gemm", **kw):
        body = {"source": source} if launch is None else {"source": source, "launch": launch}
        headers = {**self.headers, **kw.pop("headers", {})}
        return self.client.post(f"/api/exercises/{exercise}/submissions", json=body, headers=headers, **kw)

    def get(self, sub_id: int, **kw):
        return self.client.get(f"/api/submissions/{sub_id}", headers=self.headers, **kw)

    def wait(self, sub_id: int, states=("done", "awaiting_gpu"), timeout: float = 60.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            view = self.get(sub_id).json()
            if view["state"] in states:
                return view
            if time.monotonic() > deadline:
                raise AssertionError(f"submission {sub_id} stuck in {view['state']}")
            time.sleep(0.05)


def add_user(app, username: str, role: str = "learner") -> str:
    """A user and an API token for them (the token text)."""
    from app.accounts import auth as authn
    from app.accounts.users import create_user

    with app_services(app).session_factory() as db:
        user = create_user(db, username, PASSWORD, role=role)
        token, _ = authn.create_api_token(db, user, "tests")
        db.commit()
    return token


@pytest.fixture
def make_client():
    """Start an app (lifespan and all) and return its TestClient; closed at the end."""
    opened = []

    def start(settings):
        client = TestClient(create_app(settings), raise_server_exceptions=False)
        client.__enter__()
        opened.append(client)
        return client

    yield start
    for client in reversed(opened):
        client.__exit__(None, None, None)


@pytest.fixture
def api_for():
    def make(client: TestClient, username: str, role: str = "learner") -> Api:
        return Api(client, username, add_user(client.app, username, role))
    return make


@pytest.fixture
def fake_gpu(monkeypatch):
    """Stub ONLY the GPU run (kernels.engine.gpu.run_job / gpu_available). Everything before it —
    policy, launch checks, the sandboxed NVRTC compile — is the real engine. The stub reports the
    GPU phases and answers PASSED with the spec's tiers (met), like the real runner would."""
    import kernels.engine.gpu as gpu
    from app.bench.fake_gpu import passed_result

    calls = []

    def run_job(exercise, compiled, plan, on_phase=None, **kw):
        calls.append((exercise.id, compiled.kernel_name, plan))
        on_phase("checking")
        on_phase("timing")
        return passed_result(exercise.id)

    monkeypatch.setattr(gpu, "gpu_available", lambda: True)
    monkeypatch.setattr(gpu, "run_job", run_job)
    return calls


def signup_cookie_client(client: TestClient, username: str) -> str:
    """Sign up through the real form (cookie session); returns the session's CSRF token."""

    page = client.get("/en/signup")
    token = first_group(r'name="csrf_token" value="([^"]+)"', page.text)
    response = client.post("/en/signup", data={"csrf_token": token, "username": username, "password": PASSWORD,
                                               "password2": PASSWORD, "tz": "UTC", "next": "/en/"},
                           follow_redirects=False)
    assert response.status_code == 303, response.text
    return first_group(r'name="csrf-token" content="([^"]+)"', client.get("/en/").text)
