"""Comments tests: an app on a real SQLite file, several independent browsers (own cookie jars)
talking to it over the whole ASGI stack (middleware, cookies, CSRF, JSON)."""
from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.core.services import app_services
from app.factory import create_app
from tests.scrape import first_group

PASSWORD = "correct horse battery"
LESSON = "naive-vs-tiled-gemm"  # lesson 04 of the real catalog
OTHER_LESSON = "matrix-layout-coalescing"
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
CSRF_META = re.compile(r'name="csrf-token" content="([^"]+)"')


class Browser:
    """A TestClient with its user's CSRF token and JSON helpers for the comments API."""

    def __init__(self, client: TestClient):
        self.client = client
        self.csrf = ""
        self.username = ""

    def signup(self, username: str, lang: str = "en") -> Browser:
        token = first_group(CSRF_FIELD, self.client.get(f"/{lang}/signup").text)
        response = self.client.post(f"/{lang}/signup", data={
            "csrf_token": token, "username": username, "password": PASSWORD, "password2": PASSWORD,
            "tz": "UTC", "next": f"/{lang}/"}, follow_redirects=False)
        assert response.status_code == 303, response.text
        self.csrf = first_group(CSRF_META, self.client.get("/en/").text)
        self.username = username
        return self

    def send(self, method: str, url: str, json=None, csrf: bool = True, **kwargs):
        headers = kwargs.pop("headers", {})
        if csrf and self.csrf:
            headers["X-CSRF-Token"] = self.csrf
        return self.client.request(method, url, json=json, headers=headers, **kwargs)

    def post_comment(self, body: str, parent_id: int | None = None, lang: str = "en", slug: str = LESSON):
        return self.send("POST", f"/api/lessons/{slug}/comments", {"body": body, "lang": lang, "parent_id": parent_id})

    def comment(self, body: str, parent_id: int | None = None, **kwargs) -> int:
        response = self.post_comment(body, parent_id, **kwargs)
        assert response.status_code == 201, response.text
        return response.json()["id"]

    def listing(self, slug: str = LESSON, **params):
        params.setdefault("lang", "en")
        response = self.client.get(f"/api/lessons/{slug}/comments", params=params)
        assert response.status_code == 200, response.text
        return response.json()

    def unread(self) -> int:
        return self.client.get("/api/notifications/summary").json()["unread"]


@pytest.fixture
def app(settings):
    return create_app(settings)


@pytest.fixture
def browser_factory(app):
    clients = []

    def make() -> Browser:
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        return Browser(client)

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def kim(browser_factory) -> Browser:
    return browser_factory().signup("kim")


@pytest.fixture
def lee(browser_factory) -> Browser:
    return browser_factory().signup("lee")


@pytest.fixture
def visitor(browser_factory) -> Browser:
    return browser_factory()


def set_role(app, username: str, role: str) -> None:
    from app.accounts.users import find_user

    with app_services(app).session_factory() as db:
        user = find_user(db, username)
        assert user is not None, f"no user {username!r} to make {role}"
        user.role = role
        db.commit()


@pytest.fixture
def teacher(app, browser_factory) -> Browser:
    browser = browser_factory().signup("teacher")
    set_role(app, "teacher", "instructor")
    return browser
