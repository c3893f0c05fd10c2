"""Language choice: URL prefix, cookie, Accept-Language, default ko; switch keeps the page."""
import pytest

from app.i18n import parse_accept_language

SLUG = "naive-vs-tiled-gemm"


def test_root_defaults_to_korean(client):
    response = client.get("/", follow_redirects=False)
    assert response.status_code == 307 and response.headers["location"] == "/ko/"


def test_root_follows_accept_language(client):
    response = client.get("/", headers={"Accept-Language": "en-US,en;q=0.9,ko;q=0.5"}, follow_redirects=False)
    assert response.headers["location"] == "/en/"
    response = client.get("/", headers={"Accept-Language": "fr, ko-KR;q=0.8, en;q=0.7"}, follow_redirects=False)
    assert response.headers["location"] == "/ko/"


def test_cookie_beats_accept_language(client):
    client.cookies.set("lang", "en")
    response = client.get("/", headers={"Accept-Language": "ko"}, follow_redirects=False)
    assert response.headers["location"] == "/en/"


def test_switch_sets_cookie_and_keeps_the_page(client):
    response = client.get(f"/language/en?next=/ko/lessons/{SLUG}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/en/lessons/{SLUG}"
    assert "lang=en" in response.headers["set-cookie"]
    assert client.get("/", follow_redirects=False).headers["location"] == "/en/"


@pytest.mark.parametrize("evil", ["https://evil.example/", "//evil.example/x", "/ko/../../etc", "javascript:alert(1)"])
def test_switch_never_redirects_off_site(client, evil):
    response = client.get("/language/ko", params={"next": evil}, follow_redirects=False)
    assert response.headers["location"] == "/ko/"


def test_every_page_has_switch_and_hreflang(client):
    page = client.get(f"/ko/lessons/{SLUG}").text
    assert f'href="/language/en?next=/en/lessons/{SLUG}"' in page
    assert f'<link rel="alternate" hreflang="en" href="/en/lessons/{SLUG}">' in page
    assert f'<link rel="alternate" hreflang="ko" href="/ko/lessons/{SLUG}">' in page
    index = client.get("/en/").text
    assert 'href="/language/ko?next=/ko/"' in index


def test_ui_strings_are_translated(client):
    ko = client.get("/ko/").text
    en = client.get("/en/").text
    assert "레슨" in ko and "진행 상황은 이 브라우저에만 저장돼요" in ko
    assert "Lessons" in en and "Progress is stored in this browser only" in en


def test_lang_without_slash_redirects(client):
    response = client.get("/en", follow_redirects=False)
    assert response.status_code == 308 and response.headers["location"] == "/en/"


@pytest.mark.parametrize("header,expected", [
    ("en", "en"), ("ko-KR,ko;q=0.9", "ko"), ("de, fr;q=0.9", None), ("", None), (None, None),
    ("ko;q=0.2, en;q=0.8", "en"), ("en;q=0, ko;q=0.1", "ko"), ("en;q=abc, ko", "ko"),
])
def test_parse_accept_language(header, expected):
    assert parse_accept_language(header) == expected
