"""Helpers for account tests: an app on a real SQLite file, and signed-in clients over real HTTP
(TestClient speaks ASGI through the whole app: middleware, cookies, forms, JSON)."""
from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.core.services import app_services
from app.factory import create_app
from tests.scrape import first_group

PASSWORD = "correct horse battery"
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
CSRF_META = re.compile(r'name="csrf-token" content="([^"]+)"')
LESSON = "naive-vs-tiled-gemm"  # lesson 04 of the real catalog


@pytest.fixture
def settings(settings, db_url):
    """The accounts/XP tests run on SQLite and on a real PostgreSQL (``db_url``)."""
    return settings.model_copy(update={"database_url": db_url})


@pytest.fixture
def app(settings):
    """The web process without its grading pipeline (``MKC_DISPATCHER_ENABLED=false``, as beside a
    standalone ``python -m app dispatcher``): these tests write submission rows by hand to see how pages
    show them, and a live grader would take a ``queued`` row as its next job (its compile slot polls
    every half second) and pay XP for a ``done`` one; under load the page was read after that, so it
    showed another state than the one stored. Its polling queries would also land in the statement
    counts of test_page_state_perf. Grading itself is tested in tests/submissions."""
    return create_app(settings.model_copy(update={"dispatcher_enabled": False}))


@pytest.fixture
def new_client(app):
    """Make independent browsers (own cookie jars) on the same app."""
    clients = []

    def make() -> TestClient:
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


def form_token(client: TestClient, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, response.text
    return first_group(CSRF_FIELD, response.text)


def page_csrf(client: TestClient, path: str = "/en/") -> str:
    """The session's CSRF token, as a signed-in page carries it for scripts."""
    return first_group(CSRF_META, client.get(path).text)


def signup(client: TestClient, username: str, password: str = PASSWORD, tz: str = "UTC", lang: str = "en"):
    token = form_token(client, f"/{lang}/signup")
    return client.post(f"/{lang}/signup", data={"csrf_token": token, "username": username, "password": password,
                                                "password2": password, "tz": tz, "next": f"/{lang}/"},
                       follow_redirects=False)


def signin(client: TestClient, username: str, password: str = PASSWORD, lang: str = "en"):
    token = form_token(client, f"/{lang}/signin")
    return client.post(f"/{lang}/signin", data={"csrf_token": token, "username": username, "password": password,
                                                "next": f"/{lang}/"}, follow_redirects=False)


@pytest.fixture
def user_client(new_client):
    """A browser signed in as a fresh learner 'kim'."""
    client = new_client()
    assert signup(client, "kim").status_code == 303
    return client


def set_role(app, username: str, role: str) -> None:
    from app.accounts.users import find_user

    with app_services(app).session_factory() as db:
        user = find_user(db, username)
        assert user is not None, f"no user {username!r} to make {role}"
        user.role = role
        db.commit()
