"""The first administrator without a terminal, and a forgotten password: ``create-admin`` with no
terminal and no password says so (no traceback), an existing user is promoted and told their password
stayed; an admin makes a one-time reset link (on /admin/users or with ``reset-link``) and the user sets
a new password with it, once."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from app.factory import create_app
from tests.conftest import make_settings

from .conftest import CSRF_FIELD, PASSWORD, form_token, signup

ROOT = Path(__file__).resolve().parents[2]
NEW_PASSWORD = "a brand new passphrase"


def run_app(tmp_path: Path, *args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess:
    """``python -m app`` on the database of the tests' app (make_settings)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MKC_")}
    environment.update(MKC_DATA_DIR=str(tmp_path / "data"),
                       MKC_DATABASE_URL=make_settings(tmp_path).database_url, **env)
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=environment, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def signin(client: TestClient, username: str, password: str, lang: str = "en"):
    token = form_token(client, f"/{lang}/signin")
    return client.post(f"/{lang}/signin", data={"csrf_token": token, "username": username, "password": password,
                                                "next": f"/{lang}/"}, follow_redirects=False)


def test_create_admin_without_a_terminal_says_what_to_do(tmp_path):
    done = run_app(tmp_path, "create-admin", "root1")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "MKC_ADMIN_PASSWORD" in done.stderr and "--password-stdin" in done.stderr
    assert "비밀번호" in done.stderr  # and in Korean

    made = run_app(tmp_path, "create-admin", "root1", "--password-stdin", stdin=PASSWORD + "\n")
    assert made.returncode == 0 and "Created the administrator root1." in made.stdout, made.stderr
    again = run_app(tmp_path, "create-admin", "root1", MKC_ADMIN_PASSWORD="some other password")
    assert again.returncode == 0, again.stderr
    assert "root1 is now an administrator. Their password was not changed." in again.stdout
    assert "python -m app reset-link root1" in again.stdout


def test_reset_link_from_the_cli_works_once_and_signs_out_elsewhere(tmp_path):
    app = create_app(make_settings(tmp_path))
    with TestClient(app, raise_server_exceptions=False) as kim, TestClient(app, raise_server_exceptions=False) as other:
        assert signup(kim, "kim").status_code == 303
        assert signin(other, "kim", PASSWORD).status_code == 303
        nobody = run_app(tmp_path, "reset-link", "nobody")
        assert nobody.returncode == 1 and "There is no user called nobody." in nobody.stderr
        assert "nobody(이)라는" not in nobody.stderr and "nobody라는" in nobody.stderr
        done = run_app(tmp_path, "reset-link", "kim", "--base-url", "https://course.example/", "--lang", "en")
        assert done.returncode == 0, done.stderr
        link = re.search(r"https://course\.example(/en/reset-password/\S+)", done.stdout).group(1)

        for lang, words in (("en", "Choose a new password"), ("ko", "새 비밀번호")):
            page = kim.get(link.replace("/en/", f"/{lang}/"))
            assert page.status_code == 200 and words in page.text and "kim" in page.text
        token = CSRF_FIELD.search(kim.get(link).text).group(1)
        short = kim.post(link, data={"csrf_token": token, "password": "short", "password2": "short"})
        assert short.status_code == 400 and 'data-error="password_too_short"' in short.text
        assert "data-reset-form" in short.text  # the link still works after a refused password
        done = kim.post(link, data={"csrf_token": token, "password": NEW_PASSWORD, "password2": NEW_PASSWORD},
                        follow_redirects=False)
        assert done.status_code == 303 and done.headers["location"] == "/en/profile"
        assert other.get("/en/profile", follow_redirects=False).status_code == 303  # signed out there

        used = kim.get(link.replace("/en/", "/ko/"))
        assert used.status_code == 404 and 'data-error="reset_link_invalid"' in used.text and "관리자" in used.text
        with TestClient(app) as fresh:
            assert signin(fresh, "kim", PASSWORD).status_code == 400
            assert signin(fresh, "kim", NEW_PASSWORD).status_code == 303


def test_an_admin_makes_a_reset_link_on_the_users_page(tmp_path):
    app = create_app(make_settings(tmp_path))
    with TestClient(app, raise_server_exceptions=False) as ada, TestClient(app, raise_server_exceptions=False) as kim:
        assert signup(ada, "ada").status_code == 303 and signup(kim, "kim").status_code == 303
        assert run_app(tmp_path, "create-admin", "ada").returncode == 0
        page = ada.get("/ko/admin/users").text
        assert 'data-reset-for="kim"' in page
        kim_id = re.search(r'action="/ko/admin/users/(\d+)/reset-link"[^<]*\s*<input[^>]*>\s*<button[^>]*data-reset-for="kim"',
                           page).group(1)
        token = CSRF_FIELD.search(page).group(1)
        refused = kim.post(f"/ko/admin/users/{kim_id}/reset-link", data={"csrf_token": token})
        assert refused.status_code in (403, 404)
        shown = ada.post(f"/ko/admin/users/{kim_id}/reset-link", data={"csrf_token": token})
        assert shown.status_code == 200 and "data-reset-link-box" in shown.text and "일회용" in shown.text
        link = re.search(r'data-reset-link[^>]*value="([^"]+)"|value="([^"]+)"[^>]*data-reset-link', shown.text)
        url = next(g for g in link.groups() if g)
        assert "/ko/reset-password/" in url
        path = url[url.index("/ko/"):]
        assert kim.get(path).status_code == 200
        # a second link replaces the first
        ada.post(f"/ko/admin/users/{kim_id}/reset-link", data={"csrf_token": token})
        assert kim.get(path).status_code == 404


def test_the_reset_table_migrates_down_and_up(db_url):
    from alembic import command
    from sqlalchemy import inspect

    from app.core.db import make_engine
    from app.core.migrate import alembic_config, upgrade_to_head

    engine = make_engine(db_url)
    upgrade_to_head(engine)
    assert "password_reset" in inspect(engine).get_table_names()
    with engine.begin() as conn:
        config = alembic_config(engine)
        config.attributes["connection"] = conn
        command.downgrade(config, "0012_verdict_override_flow")
    assert "password_reset" not in inspect(engine).get_table_names()
    upgrade_to_head(engine)
    assert "password_reset" in inspect(engine).get_table_names()
    engine.dispose()
