"""Crafted input never answers 500: ids of 2^63 and more on every route that
takes one, lone surrogates in JSON strings, and JSON nested 50,000 deep. Each is a clean 4xx with the
usual bilingual error."""
from __future__ import annotations

import re

import pytest

import app.main
from app.core.bodies import routes_of
from app.core.jsonbody import JsonBodyError, loads_strict
from tests.accounts.conftest import LESSON, page_csrf, set_role

HUGE = str(2**63)
ID_PARAM = re.compile(r"\{((?:sub|comment|notification|report|token|user)_id)\}")  # integer row ids


def _id_routes():
    out = []
    for route in routes_of(app.main.app):
        if not ID_PARAM.search(route.path):
            continue
        for method in sorted(route.methods - {"HEAD"}):
            path = ID_PARAM.sub(HUGE, route.path)
            path = (path.replace("{lang}", "en").replace("{slug}", LESSON).replace("{kind}", "note")
                    .replace("{action}", "hide").replace("{exercise_id}", "gemm"))
            out.append((method, path))
    return sorted(set(out))


ID_ROUTES = _id_routes()


def test_every_route_with_an_id_is_listed():
    assert len(ID_ROUTES) >= 20  # the issue counted 21 routes


@pytest.mark.parametrize("signed_in", [False, True])
def test_ids_beyond_64_bits_are_refused_cleanly(new_client, app, signed_in):
    from tests.accounts.conftest import signup

    client = new_client()
    headers = {"Accept-Language": "ko"}
    if signed_in:
        assert signup(client, "admin1").status_code == 303
        set_role(app, "admin1", "admin")
        headers["X-CSRF-Token"] = page_csrf(client)
    for method, path in ID_ROUTES:
        response = client.request(method, path, headers=headers, json={} if method != "GET" else None)
        assert 400 <= response.status_code < 500, (method, path, response.status_code, response.text[:300])
        if path.startswith("/api/"):
            body = response.json()
            assert body["message"] and "Traceback" not in response.text


@pytest.mark.parametrize("payload", [
    '{"body": "\\ud800", "lang": "ko"}',
    '{"body": "ok \\udfff", "lang": "ko"}',
    '{"\\ud800": "x"}',
])
def test_lone_surrogates_in_json_are_refused(user_client, payload):
    csrf = page_csrf(user_client)
    headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json", "Accept-Language": "en"}
    targets = [("POST", f"/api/lessons/{LESSON}/comments"), ("POST", "/api/progress/merge"),
               ("POST", "/api/exercises/gemm/submissions"), ("PUT", "/api/notifications/settings")]
    for method, path in targets:
        response = user_client.request(method, path, content=payload.encode(), headers=headers)
        assert 400 <= response.status_code < 500, (path, response.status_code, response.text[:300])
        assert response.json()["message"]


def test_report_and_grader_note_refuse_lone_surrogates(new_client, app):
    from tests.accounts.conftest import signup

    client = new_client()
    assert signup(client, "grader1").status_code == 303
    set_role(app, "grader1", "grader")
    csrf = page_csrf(client)
    headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json"}
    raw = b'{"reason": "\\ud800"}'
    for path in ("/api/graders/submissions/1/note", "/api/comments/1/report"):
        response = client.post(path, content=raw, headers=headers)
        assert 400 <= response.status_code < 500, (path, response.status_code, response.text[:300])


def test_deep_nesting_is_refused(user_client):
    csrf = page_csrf(user_client)
    headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json", "Accept-Language": "ko"}
    deep = b"[" * 50_000
    for method, path in [("POST", f"/api/lessons/{LESSON}/comments"), ("POST", "/api/progress/merge"),
                         ("POST", "/api/exercises/gemm/submissions"), ("POST", "/api/graders/submissions/1/note")]:
        response = user_client.request(method, path, content=deep, headers=headers)
        assert 400 <= response.status_code < 500, (path, response.status_code, response.text[:300])


def test_loads_strict():
    assert loads_strict(b'{"a": ["\\ud83d\\ude00"]}') == {"a": ["\U0001F600"]}  # a surrogate *pair* is fine
    for bad, code in [(b'"\\ud800"', "bad_text"), (b"[" * 100, "too_deep"), (b"\xff", "bad_text"),
                      (b"{", "invalid_json"), (b'["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["]', None)]:
        if code is None:
            assert loads_strict(bad)  # brackets inside a string do not count
            continue
        with pytest.raises(JsonBodyError) as info:
            loads_strict(bad)
        assert info.value.code == code


def test_nul_characters_are_refused_everywhere(user_client):
    """PostgreSQL text cannot hold NUL: JSON, forms, paths and queries refuse it before the database."""
    csrf = page_csrf(user_client)
    response = user_client.post(f"/api/lessons/{LESSON}/comments", content=b'{"body": "a\\u0000b", "lang": "ko"}',
                                headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
    assert response.status_code == 422 and response.json()["message"]
    assert user_client.post("/en/profile/timezone", data={"csrf_token": csrf, "tz": "\x00"}).status_code == 400
    assert user_client.get("/ko/graders?q=%00").status_code == 400
    assert user_client.get("/api/comments/1%00").status_code == 404
