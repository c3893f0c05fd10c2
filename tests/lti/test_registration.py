"""Registering an LMS (admin page and CLI), our JWKS and key rotation, and the migration up and down."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.core.services import app_services
from tests.accounts.conftest import form_token, set_role, signup

FORM = {"name": "Moodle at school", "issuer": "https://moodle.school.example", "client_id": "abc123",
        "auth_login_url": "https://moodle.school.example/mod/lti/auth.php",
        "auth_token_url": "https://moodle.school.example/mod/lti/token.php",
        "key_set_url": "https://moodle.school.example/mod/lti/certs.php", "deployment_ids": "1\n2, 2",
        "auth_audience": ""}


@pytest.fixture
def app(settings, db_url):
    from app.factory import create_app

    return create_app(settings.model_copy(update={"database_url": db_url}))


@pytest.fixture
def admin(app):
    with TestClient(app, raise_server_exceptions=False) as client:
        signup(client, "boss")
        set_role(app, "boss", "admin")
        yield client


def test_admin_registers_a_platform_and_sees_the_values_to_enter(admin, app):
    page = admin.get("/en/admin/lti")
    assert page.status_code == 200
    assert "http://testserver/lti/login" in page.text
    assert "http://testserver/lti/launch" in page.text
    assert "http://testserver/lti/jwks" in page.text
    assert "PRIVATE KEY" not in page.text
    token = form_token(admin, "/en/admin/lti")
    done = admin.post("/en/admin/lti", data={**FORM, "csrf_token": token}, follow_redirects=False)
    assert done.status_code == 303
    listed = admin.get("/en/admin/lti").text
    assert "https://moodle.school.example" in listed and ">1\n2</textarea>" in listed
    from app.lti.models import LtiDeployment, LtiPlatform
    with app_services(app).session_factory() as db:
        assert db.scalar(select(LtiPlatform.client_id)) == "abc123"
        assert sorted(db.scalars(select(LtiDeployment.deployment_id))) == ["1", "2"]
    again = admin.post("/en/admin/lti", data={**FORM, "csrf_token": token})
    assert again.status_code == 409
    assert "This issuer and client id are already registered." in again.text


@pytest.mark.parametrize("lang, change, status, text", [
    ("en", {"key_set_url": "http://moodle.school.example/certs"}, 400,
     "The URLs must start with https:// (http:// only for localhost)."),
    ("ko", {"deployment_ids": " "}, 400, "발급자, 클라이언트 ID, URL 세 개, 배포 ID 하나 이상을 모두 채워 주세요."),
    ("en", {"issuer": "x" * 300}, 400, "Fill in every field"),
])
def test_bad_registrations_are_refused_and_the_form_is_kept(admin, lang, change, status, text):
    token = form_token(admin, f"/{lang}/admin/lti")
    page = admin.post(f"/{lang}/admin/lti", data={**FORM, **change, "csrf_token": token})
    assert page.status_code == status
    assert text in page.text
    assert 'value="abc123"' in page.text  # what was typed is still there


def test_only_admins_reach_the_page(app):
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/en/admin/lti").status_code == 401
        signup(client, "learner1")
        assert client.get("/en/admin/lti").status_code == 403


def test_jwks_publishes_the_public_key_and_rotation_keeps_the_old_one(admin):
    first = admin.get("/lti/jwks").json()["keys"]
    assert len(first) == 1 and first[0]["kty"] == "RSA" and first[0]["alg"] == "RS256"
    assert "d" not in first[0] and "p" not in first[0]  # no private parts
    kid = re.search(r"data-kid>([^<]+)<", admin.get("/en/admin/lti").text).group(1)
    assert kid == first[0]["kid"]
    token = form_token(admin, "/en/admin/lti")
    assert admin.post("/en/admin/lti/rotate-key", data={"csrf_token": token}, follow_redirects=False).status_code == 303
    after = admin.get("/lti/jwks").json()["keys"]
    assert len(after) == 2 and after[1]["kid"] == first[0]["kid"] and after[0]["kid"] != first[0]["kid"]
    new_kid = re.search(r"data-kid>([^<]+)<", admin.get("/en/admin/lti").text).group(1)
    assert new_kid == after[0]["kid"]


def test_cli_registers_lists_and_rotates(tmp_path):
    from app.core.config import PROJECT_ROOT

    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path / "d"), MKC_DATABASE_URL="")

    def run(*args):
        return subprocess.run([sys.executable, "-m", "app", "lti", *args], cwd=PROJECT_ROOT, env=env,
                              capture_output=True, text=True, timeout=120)

    done = run("register", "--issuer", "https://canvas.instructure.com", "--client-id", "10000000000001",
               "--auth-login-url", "https://sso.canvaslms.com/api/lti/authorize_redirect",
               "--auth-token-url", "https://sso.canvaslms.com/login/oauth2/token",
               "--key-set-url", "https://sso.canvaslms.com/api/lti/security/jwks",
               "--deployment-id", "12:abcd", "--deployment-id", "13:ef")
    assert done.returncode == 0, done.stderr
    listed = run("list")
    assert "https://canvas.instructure.com\t10000000000001\t12:abcd, 13:ef" in listed.stdout
    bad = run("register", "--issuer", "i", "--client-id", "c", "--auth-login-url", "ftp://x",
              "--auth-token-url", "https://x", "--key-set-url", "https://x", "--deployment-id", "1")
    assert bad.returncode == 1 and "The URLs must start with https://" in bad.stderr
    assert run("send-scores").stdout == "tried 0 sends\n"  # nothing linked yet: a pass that finds nothing
    rotated = run("rotate-key")
    assert rotated.returncode == 0 and rotated.stdout.startswith("new key id ")
    assert "PRIVATE" not in done.stdout + listed.stdout + rotated.stdout


def test_migration_goes_down_and_up(db_url):
    from alembic import command
    from sqlalchemy import inspect

    from app.core.db import make_engine
    from app.core.migrate import alembic_config, upgrade_to_head

    engine = make_engine(db_url)
    upgrade_to_head(engine)
    config = alembic_config(engine)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0015_classes")
    assert "lti_platform" not in inspect(engine).get_table_names()
    upgrade_to_head(engine)
    assert {"lti_platform", "lti_key", "lti_identity", "lti_member"} <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_admin_edits_deployments_and_removes_a_platform(admin, app):
    from app.lti.models import LtiDeployment, LtiPlatform

    token = form_token(admin, "/en/admin/lti")
    admin.post("/en/admin/lti", data={**FORM, "csrf_token": token})
    with app_services(app).session_factory() as db:
        platform_id = db.scalar(select(LtiPlatform.id))
    saved = admin.post(f"/en/admin/lti/{platform_id}/deployments", data={"csrf_token": token, "deployment_ids": "2\n3"},
                       follow_redirects=False)
    assert saved.status_code == 303
    with app_services(app).session_factory() as db:
        assert sorted(db.scalars(select(LtiDeployment.deployment_id))) == ["2", "3"]
    empty = admin.post(f"/ko/admin/lti/{platform_id}/deployments", data={"csrf_token": token, "deployment_ids": ""})
    assert empty.status_code == 400 and "배포 ID 하나 이상" in empty.text
    with app_services(app).session_factory() as db:  # a refused edit changed nothing
        assert sorted(db.scalars(select(LtiDeployment.deployment_id))) == ["2", "3"]
    gone = admin.post(f"/en/admin/lti/{platform_id}/delete", data={"csrf_token": token}, follow_redirects=False)
    assert gone.status_code == 303
    assert admin.post(f"/en/admin/lti/{platform_id}/delete", data={"csrf_token": token}).status_code == 404
    with app_services(app).session_factory() as db:
        assert db.scalar(select(LtiPlatform.id)) is None and db.scalar(select(LtiDeployment.id)) is None


def test_over_https_the_state_cookie_crosses_the_lms_iframe(app):
    """SameSite=None; Secure: the launch is a cross-site POST from the LMS, often inside its frame."""
    from app.lti import registry

    with TestClient(app, base_url="https://course.example", raise_server_exceptions=False) as client:
        with app_services(app).session_factory() as db:
            registry.register(db, registry.PlatformForm(
                name="", issuer="https://lms.example", client_id="c1",
                auth_login_url="https://lms.example/auth", auth_token_url="https://lms.example/token",
                key_set_url="https://lms.example/jwks", deployment_ids=["d1"]))
            db.commit()
        answer = client.get("/lti/login", params={"iss": "https://lms.example", "login_hint": "u1", "client_id": "c1"},
                            follow_redirects=False)
        assert answer.status_code == 302
        assert answer.headers["location"].startswith("https://lms.example/auth?")
        assert "redirect_uri=https%3A%2F%2Fcourse.example%2Flti%2Flaunch" in answer.headers["location"]
        cookie = answer.headers["set-cookie"].lower()
        assert cookie.startswith("lti1p3-state-") and "samesite=none" in cookie and "secure" in cookie
        assert "httponly" in cookie
