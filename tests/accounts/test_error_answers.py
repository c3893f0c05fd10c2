"""Bad requests are answered in the reader's language: JSON under /api/, the error page elsewhere.
FastAPI's own 422 body is English-only, so the app replaces it."""
from __future__ import annotations

from tests.accounts.conftest import page_csrf


def test_unknown_api_path_is_json_in_korean(client):
    client.cookies.set("lang", "ko")
    response = client.get("/api/no-such-thing")
    assert response.status_code == 404
    body = response.json()
    assert body["error"] == "not_found"
    assert body["message"] and body["message"] != "Not found."  # translated, not the English msgid
    assert response.headers["content-type"].startswith("application/json")


def test_malformed_api_body_gets_translated_422_naming_the_field(user_client):
    token = page_csrf(user_client)
    for lang, expected in (("ko", "형식이 맞지 않는"), ("en", "wrong type")):
        user_client.cookies.set("lang", lang)
        response = user_client.post("/api/progress/merge", content=b"{not json",
                                    headers={"X-CSRF-Token": token, "Content-Type": "application/json"})
        assert response.status_code == 422
        body = response.json()
        assert body["error"] == "invalid_request"
        assert expected in body["message"]
        assert "detail" not in body  # never FastAPI's raw English list


def test_page_form_with_missing_fields_gets_the_error_page_in_the_readers_language(client):
    client.cookies.set("lang", "ko")
    response = client.post("/ko/signin", data={})
    assert response.status_code in (400, 403, 422)
    assert "text/html" in response.headers["content-type"]
    assert "Traceback" not in response.text
    assert "<html" in response.text.lower() and "lang=\"ko\"" in response.text


def test_every_feature_refusal_is_one_json_shape_in_the_readers_language(client):
    """AppError (app/core/errors.py): accounts, comments and submissions refuse with the same body,
    and "Please sign in first." is one msgid, in either language."""
    for lang, text in (("en", "Please sign in first."), ("ko", "먼저 로그인")):
        client.cookies.set("lang", lang)
        for method, url in (("GET", "/api/notifications"), ("POST", "/api/lessons/x/comments"),
                            ("POST", "/api/exercises/x/submissions")):
            response = client.request(method, url, json={})
            assert response.status_code == 401, url
            body = response.json()
            assert set(body) == {"error", "message", "params"}, url
            assert body["error"] == "auth_required" and text in body["message"], (url, body)


def test_a_refusal_on_a_page_is_a_page_with_its_sentence(client):
    for lang, text in (("en", "did not come from this site"), ("ko", "이 사이트")):
        response = client.post(f"/{lang}/profile/timezone", data={"tz": "UTC"})  # no CSRF token
        assert response.status_code == 403
        assert "text/html" in response.headers["content-type"] and 'role="alert"' in response.text
        assert text in response.text
