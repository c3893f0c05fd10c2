"""404 and 500 pages, in both languages, for every kind of bad address."""
import pytest
from fastapi.testclient import TestClient

from app.factory import create_app


@pytest.mark.parametrize("url", [
    "/ko/lessons/does-not-exist", "/en/lessons/does-not-exist", "/fr/", "/fr/lessons/naive-vs-tiled-gemm",
    "/ko/lessons/" + "a" * 5000, "/ko/lessons/행렬", "/ko/lessons/..%2F..%2Fetc%2Fpasswd", "/ko/lessons/NAIVE-vs-tiled-gemm",
    "/ko/lessons/naive_vs_tiled", "/ko/lessons/%00", "/static/../app/core/config.py", "/ko/nothing/here",
    # an unknown {lang} is checked by the route's signature (app.i18n.requests.Lang), before sign-in
    "/fr/signin", "/fr/profile", "/fr/notifications", "/fr/graders", "/fr/reports", "/fr/authoring", "/fr/ladder",
    "/fr/lessons/naive-vs-tiled-gemm/comments",
])
def test_not_found_is_a_page_not_a_traceback(client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert "text/html" in response.headers["content-type"]
    assert "Traceback" not in response.text
    assert "class=\"error-page\"" in response.text


def test_404_speaks_the_language_of_the_url(client):
    assert "없는 페이지예요" in client.get("/ko/lessons/nope").text
    assert "This page does not exist" in client.get("/en/lessons/nope").text


def test_404_outside_a_language_uses_cookie(client):
    client.cookies.set("lang", "en")
    assert "This page does not exist" in client.get("/nowhere").text


def test_500_page_in_both_languages(settings, make_settings):
    app = create_app(settings)

    @app.get("/{lang}/boom")
    async def boom(lang: str):
        raise RuntimeError("kaboom")

    with TestClient(app, raise_server_exceptions=False) as client:
        for lang, phrase in (("ko", "서버에서 문제가 생겼어요"), ("en", "Something went wrong on our side")):
            response = client.get(f"/{lang}/boom")
            assert response.status_code == 500
            assert phrase in response.text and "kaboom" not in response.text


def test_security_headers_on_pages_and_errors(client):
    for url in ("/ko/", "/ko/lessons/nope", "/static/css/site.css"):
        headers = client.get(url).headers
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"


def test_head_request_on_pages(client):
    response = client.head("/en/lessons/naive-vs-tiled-gemm")
    assert response.status_code == 200 and response.content == b""
