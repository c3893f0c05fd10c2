"""Drafts: instructors and admins see them (with a banner, in both languages) and the authoring
preview page; learners and visitors get a 404, and the course index does not list them."""
from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.core.services import app_services
from app.factory import create_app

PASSWORD = "correct horse battery"
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
BANNER = {"en": "Draft — only instructors see this", "ko": "초안 — 강사에게만 보여요"}


@pytest.fixture
def app(tmp_path, lessons_dir, write_lesson, make_settings, monkeypatch):
    for name in ("MKC_DATABASE_URL", "MKC_DATA_DIR", "MKC_LESSONS_DIR", "MKC_SHOW_DRAFTS"):
        monkeypatch.delenv(name, raising=False)
    write_lesson(lessons_dir, 1, "open-lesson")
    write_lesson(lessons_dir, 2, "secret-draft", status="draft")
    (lessons_dir / "AUTHORING.en.md").write_text("# Guide\n\n## Adding a lesson\n\nRun the scaffold.\n")
    (lessons_dir / "AUTHORING.ko.md").write_text("# 안내\n\n## 레슨 추가\n\n뼈대를 만드세요.\n")
    return create_app(make_settings(tmp_path, lessons_dir=lessons_dir))


@pytest.fixture
def browser(app):
    clients = []

    def make(username: str | None = None, role: str | None = None) -> TestClient:
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        if username:
            token = CSRF_FIELD.search(client.get("/en/signup").text).group(1)
            made = client.post("/en/signup", data={"csrf_token": token, "username": username, "password": PASSWORD,
                                                   "password2": PASSWORD, "tz": "UTC", "next": "/en/"},
                               follow_redirects=False)
            assert made.status_code == 303, made.text
        if role:
            from app.accounts.users import find_user

            with app_services(app).session_factory() as db:
                find_user(db, username).role = role
                db.commit()
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.mark.parametrize("who", ["visitor", "learner", "grader"])
def test_drafts_are_a_404_for_everyone_else(browser, who):
    client = browser() if who == "visitor" else browser(f"{who}_user", None if who == "learner" else who)
    for lang in ("en", "ko"):
        assert client.get(f"/{lang}/lessons/secret-draft").status_code == 404
        index = client.get(f"/{lang}/")
        assert index.status_code == 200 and "secret-draft" not in index.text and "open-lesson" in index.text
        assert client.get(f"/{lang}/lessons/open-lesson").status_code == 200
        assert client.get(f"/{lang}/authoring").status_code == 404


@pytest.mark.parametrize("role", ["instructor", "admin"])
def test_instructors_and_admins_preview_drafts_with_a_banner(browser, role):
    client = browser(f"person_{role}", role)
    for lang in ("en", "ko"):
        page = client.get(f"/{lang}/lessons/secret-draft")
        assert page.status_code == 200 and BANNER[lang] in page.text and "data-draft-banner" in page.text
        assert page.headers["cache-control"] == "private, no-store"
        assert "secret-draft" in client.get(f"/{lang}/").text
        published = client.get(f"/{lang}/lessons/open-lesson").text
        assert "data-draft-banner" not in published
    # What the instructor saw was never cached for a visitor.
    visitor = browser()
    assert visitor.get("/en/lessons/secret-draft").status_code == 404
    assert "secret-draft" not in visitor.get("/en/").text


def test_authoring_page_lists_drafts_problems_and_the_guide(browser, lessons_dir):
    (lessons_dir / "03-broken").mkdir()
    (lessons_dir / "03-broken" / "lesson.yaml").write_text("order: 3\nslug: broken\nstatus: published\nxp: -1\n")
    client = browser("teacher", "instructor")
    en = client.get("/en/authoring")
    assert en.status_code == 200
    assert 'data-lesson-slug="secret-draft"' in en.text and 'data-lesson-slug="open-lesson"' in en.text
    assert "03-broken/lesson.yaml:4" in en.text  # the catalog's problems, at file:line
    assert "Adding a lesson" in en.text and "Run the scaffold." in en.text
    ko = client.get("/ko/authoring")
    assert ko.status_code == 200 and "레슨 추가" in ko.text and "레슨 작성" in ko.text
