"""Browsers of a live server (app/bench/submissions_server.Server) over real HTTP (httpx): the visitor's
double-submit CSRF token of a form, and signing in through the sign-in form."""
from __future__ import annotations

import httpx

from tests.accounts.conftest import CSRF_FIELD, PASSWORD  # noqa: F401  (PASSWORD: add_users' password too)
from tests.scrape import first_group


def form_csrf(client: httpx.Client, path: str) -> str:
    return first_group(CSRF_FIELD, client.get(path).text)


def post_signin(client: httpx.Client, name: str, password: str = PASSWORD, token: str | None = None) -> httpx.Response:
    token = token or form_csrf(client, "/en/signin")
    return client.post("/en/signin", data={"csrf_token": token, "username": name, "password": password, "next": "/en/"},
                       follow_redirects=False)


def signed_in(url: str, name: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=60)
    answer = post_signin(client, name)
    assert answer.status_code == 303, answer.text[:300]
    return client


def page_csrf(client: httpx.Client, path: str = "/en/") -> str:
    return first_group(r'name="csrf-token" content="([^"]+)"', client.get(path).text)
