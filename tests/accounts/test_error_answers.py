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
