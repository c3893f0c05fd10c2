"""Permissions per role, the admins' role page, and personal API tokens."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from sqlalchemy import select

from app.accounts.models import ApiToken, User
from app.core.config import PROJECT_ROOT
from app.core.services import app_services

from .conftest import CSRF_FIELD, page_csrf, set_role, signup

ROLE_CASES = {
    # (admin page, change a role by API, view another's progress, adjust XP)
    "learner": (403, 403, 403, 403),
    "instructor": (403, 403, 200, 403),
    "grader": (403, 403, 200, 200),
    "admin": (200, 200, 200, 200),
}


@pytest.mark.parametrize("role", list(ROLE_CASES))
def test_permissions_per_role(role, new_client, app):
    signup(new_client(), "other")
    client = new_client()
    signup(client, "actor")
    set_role(app, "actor", role)
    csrf = {"X-CSRF-Token": page_csrf(client)}
    got = (
        client.get("/en/admin/users").status_code,
        client.post("/api/admin/users/other/role", json={"role": "grader"}, headers=csrf).status_code,
        client.get("/api/users/other/progress").status_code,
        client.post("/api/xp/adjust", json={"username": "other", "amount": 5, "reason": "bonus", "reference": "r1"},
                    headers=csrf).status_code,
    )
    assert got == ROLE_CASES[role]


def test_visitors_get_401_on_the_api_and_a_sign_in_redirect_on_pages(new_client):
    client = new_client()
    assert client.get("/api/me").status_code == 401
    response = client.get("/en/profile", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/en/signin")
    assert client.get("/en/admin/users").status_code == 401


def test_admin_changes_roles_on_the_page(new_client, app):
    signup(new_client(), "lee")
    admin = new_client()
    signup(admin, "boss")
    set_role(app, "boss", "admin")
    page = admin.get("/ko/admin/users")
    assert page.status_code == 200 and "사용자와 역할" in page.text and 'data-user-row="lee"' in page.text
    with app_services(app).session_factory() as db:
        lee_id = db.scalar(select(User.id).where(User.username == "lee"))
    token = CSRF_FIELD.search(page.text).group(1)
    response = admin.post(f"/ko/admin/users/{lee_id}/role", data={"csrf_token": token, "role": "instructor"},
                          follow_redirects=False)
    assert response.status_code == 303
    assert admin.post(f"/ko/admin/users/{lee_id}/role", data={"csrf_token": token, "role": "emperor"}).status_code == 400
    with app_services(app).session_factory() as db:
        assert db.scalar(select(User.role).where(User.username == "lee")) == "instructor"


def test_the_last_admin_cannot_step_down(new_client, app):
    admin = new_client()
    signup(admin, "boss")
    set_role(app, "boss", "admin")
    response = admin.post("/api/admin/users/boss/role", json={"role": "learner"},
                          headers={"X-CSRF-Token": page_csrf(admin)})
    assert response.status_code == 409 and response.json()["error"] == "last_admin"


def _create_token(client, name="script"):
    page = client.get("/en/profile")
    response = client.post("/en/profile/tokens", data={"csrf_token": CSRF_FIELD.search(page.text).group(1), "name": name})
    assert response.status_code == 200
    import re
    return re.search(r"data-new-token>([^<]+)<", response.text).group(1)


def test_api_token_lifecycle(user_client, new_client, app):
    token = _create_token(user_client)
    assert token.startswith("mkc_")
    # shown once: the profile does not show it again, and the database holds only a hash
    profile = user_client.get("/en/profile").text
    assert token not in profile and 'data-token-row="script"' in profile
    with app_services(app).session_factory() as db:
        row = db.scalar(select(ApiToken))
        assert row.token_hash != token and token not in (row.prefix * 3)

    script = new_client()  # no cookies: a script
    headers = {"Authorization": f"Bearer {token}"}
    assert script.get("/api/me", headers=headers).json()["user"]["username"] == "kim"
    # tokens skip CSRF ...
    done = script.post("/api/progress/lessons/naive-vs-tiled-gemm/complete", json={"lang": "en"}, headers=headers)
    assert done.status_code == 200 and done.json()["strip"]["lessons_done"] == 1
    # ... and obey the same permissions as their owner
    assert script.get("/api/users/kim/progress", headers=headers).status_code == 403
    set_role(app, "kim", "grader")
    assert script.get("/api/users/kim/progress", headers=headers).status_code == 200

    with app_services(app).session_factory() as db:
        token_id = db.scalar(select(ApiToken.id))
    page = user_client.get("/en/profile").text
    user_client.post(f"/en/profile/tokens/{token_id}/revoke", data={"csrf_token": CSRF_FIELD.search(page).group(1)})
    refused = script.get("/api/me", headers=headers)
    assert refused.status_code == 401 and refused.json()["error"] == "bad_token"
    assert "data-token-row" not in user_client.get("/en/profile").text


def test_malformed_authorization_headers_are_401(new_client):
    client = new_client()
    for value in ("Bearer", "Bearer mkc_nope", "Basic a2ltOnB3", "Bearer " + "x" * 5000):
        assert client.get("/api/me", headers={"Authorization": value}).status_code == 401


def test_token_cannot_be_revoked_by_someone_else(new_client, user_client, app):
    _create_token(user_client)
    other = new_client()
    signup(other, "lee")
    with app_services(app).session_factory() as db:
        token_id = db.scalar(select(ApiToken.id))
    page = other.get("/en/profile").text
    response = other.post(f"/en/profile/tokens/{token_id}/revoke", data={"csrf_token": CSRF_FIELD.search(page).group(1)})
    assert response.status_code == 404


def test_token_name_is_checked(user_client):
    page = user_client.get("/en/profile").text
    response = user_client.post("/en/profile/tokens", data={"csrf_token": CSRF_FIELD.search(page).group(1), "name": "x" * 65})
    assert response.status_code == 400 and "1 to 64 characters" in response.text


def test_create_admin_cli(tmp_path):
    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path / "d"), MKC_DATABASE_URL="")
    def run(*args, stdin=""):
        return subprocess.run([sys.executable, "-m", "app", "create-admin", *args], cwd=PROJECT_ROOT,
                              env=env, input=stdin, capture_output=True, text=True, timeout=120)
    created = run("boss", "--password-stdin", stdin="a long admin password\n")
    assert created.returncode == 0 and "Created the administrator boss." in created.stdout
    assert "관리자 boss 계정을 만들었어요." in created.stdout
    weak = run("boss2", "--password-stdin", stdin="short\n")
    assert weak.returncode == 1 and "at least 10 characters" in weak.stderr
    again = run("BOSS", "--password-stdin", stdin="\n")
    assert again.returncode == 0 and "boss is now an administrator. Their password was not changed." in again.stdout


def test_role_table():
    from app.accounts.roles import PERMISSIONS, ROLES, can

    assert set(PERMISSIONS) == set(ROLES)
    assert PERMISSIONS["learner"] == frozenset()
    assert all(PERMISSIONS[r] <= PERMISSIONS["admin"] for r in ROLES)  # admins can do everything
    assert can("grader", "submissions.review") and not can("instructor", "submissions.review")
    assert can("instructor", "comments.moderate") and not can("grader", "comments.moderate")
    assert not can("nobody", "users.manage")
