"""Smaller hardening: a grader adjusting their own XP, look-alike usernames, API tokens outliving "sign out
everywhere". Each test failed before its fix. Real HTTP through the app on a real SQLite file."""
from __future__ import annotations

import re

from app.accounts.auth import AccountsConfig
from app.accounts.users import find_user
from app.core.services import app_services
from app.progress import xp
from tests.accounts.conftest import PASSWORD, form_token, page_csrf, set_role, signup
from tests.panel.conftest import app_client  # noqa: F401  (fixture)
from tests.panel.support import add_user, insert_graded, total_xp, wrong_result


def _xp(app, name: str) -> int:
    with app_services(app).session_factory() as db:
        return xp.total_xp(db, find_user(db, name))


def test_a_grader_cannot_adjust_their_own_xp(new_client, app):
    grader, learner = new_client(), new_client()
    signup(grader, "gina"), signup(learner, "leo")
    set_role(app, "gina", "grader")
    csrf = page_csrf(grader)

    def adjust(name: str, lang: str = "en"):
        return grader.post("/api/xp/adjust", headers={"X-CSRF-Token": csrf, "Accept-Language": lang},
                           json={"username": name, "amount": 500, "reason": "bonus", "reference": f"r-{name}-{lang}"})

    mine = adjust("gina")
    assert mine.status_code == 403 and mine.json()["error"] == "own_xp", mine.text
    assert "another grader" in mine.json()["message"]
    assert "다른 채점자" in adjust("gina", "ko").json()["message"]
    assert _xp(app, "gina") == 0
    theirs = adjust("leo")  # another learner: allowed, and the ledger row says who did it
    assert theirs.status_code == 200 and theirs.json()["xp"] == 500


def test_a_grader_cannot_override_their_own_submission(app_client):  # noqa: F811
    client = app_client(dispatcher_enabled=False)
    tokens = {name: add_user(client.app, name, role) for name, role in (("gina", "grader"), ("gus", "grader"))}
    own = insert_graded(client.app, "gina", wrong_result())
    body = {"verdict": "PASSED", "reason": "looks right to me"}
    refused = client.post(f"/api/graders/submissions/{own}/override", json=body,
                          headers={"Authorization": f"Bearer {tokens['gina']}"})
    assert refused.status_code == 403, refused.text
    assert total_xp(client.app, "gina") == 0
    other = client.post(f"/api/graders/submissions/{own}/override", json=body,
                        headers={"Authorization": f"Bearer {tokens['gus']}"})
    assert other.status_code == 201 and total_xp(client.app, "gina") > 0  # a second person may


def test_look_alike_usernames_are_refused(new_client, app):
    from app.accounts.ratelimit import Rate

    app_services(app).get(AccountsConfig).signup_per_ip = Rate(100, 3600)
    assert signup(new_client(), "alice1").status_code == 303
    for look_alike in ("\u0430lice1", "aIice1", "ALICE1", "\u0430Iice1"):  # Cyrillic а, capital I, case, both
        answer = signup(new_client(), look_alike)
        assert answer.status_code == 409, (look_alike, answer.status_code)
    korean = signup(new_client(), "\u0430lice1", lang="ko")
    assert korean.status_code == 409 and "비슷해" in korean.text
    assert signup(new_client(), "alice2").status_code == 303  # a different name is fine


def test_signing_out_everywhere_says_tokens_live_on_and_can_revoke_them(new_client):
    client = new_client()
    signup(client, "tess")

    def new_token() -> str:
        token = form_token(client, "/en/profile")
        page = client.post("/en/profile/tokens", data={"csrf_token": token, "name": "script"})
        return re.search(r"data-new-token>([^<]+)<", page.text).group(1)

    def sign_out_everywhere(**extra):
        token = form_token(client, "/en/profile")
        answer = client.post("/signout-everywhere", data={"csrf_token": token, "lang": "en", **extra},
                             follow_redirects=False)
        assert answer.status_code == 303

    def sign_in_again():
        token = form_token(client, "/en/signin")
        client.post("/en/signin", data={"csrf_token": token, "username": "tess", "password": PASSWORD, "next": "/en/"})

    profile = client.get("/en/profile").text
    assert "API tokens keep working unless you revoke them too" in profile and 'name="revoke_tokens"' in profile
    kept = new_token()
    sign_out_everywhere()
    assert new_client().get("/api/me", headers={"Authorization": f"Bearer {kept}"}).status_code == 200
    sign_in_again()
    sign_out_everywhere(revoke_tokens="yes")
    assert new_client().get("/api/me", headers={"Authorization": f"Bearer {kept}"}).status_code == 401
