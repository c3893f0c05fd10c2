"""A grader's override flows through progress like a grading: one event in the
log, achievements taken back and given back, the learner's panel (HTML and JSON) and bell in the
learner's language with the grader's note; a repeated override adds nothing."""
import json

from sqlalchemy import func, select

from app.accounts.models import User
from app.core.services import app_services
from app.notifications.models import Notification
from app.progress.models import Event, UserAchievement
from app.submissions.models import SubmissionReview
from tests.panel.support import cookie_login

from .test_graders import bearer, setup


def _held(app, username):
    with app_services(app).session_factory() as db:
        uid = db.scalar(select(User.id).where(User.username == username))
        return set(db.scalars(select(UserAchievement.achievement_id).where(UserAchievement.user_id == uid)))


def _events(app, username, kind):
    with app_services(app).session_factory() as db:
        uid = db.scalar(select(User.id).where(User.username == username))
        return list(db.scalars(select(Event).where(Event.user_id == uid, Event.kind == kind).order_by(Event.id)))


def _override(client, token, sub, verdict, reason):
    r = client.post(f"/api/graders/submissions/{sub}/override", headers=bearer(token),
                    json={"verdict": verdict, "reason": reason})
    assert r.status_code in (200, 201), r.text
    return r.json()["review"]


def test_override_revokes_and_restores_achievements_through_events(app_client):
    client, tokens, ids = setup(app_client)
    g, sub = tokens["gina"], ids["alice_pass"]
    assert {"first_correct", "beat_naive", "beat_tiled"} <= _held(client.app, "alice")

    _override(client, g, sub, "WRONG_ANSWER", "hard-codes the 1024 case")
    [event] = _events(client.app, "alice", "verdict_overridden")
    data = json.loads(event.data) if isinstance(event.data, str) else event.data
    assert data["submission"] == str(sub) and data["verdict"] == "WRONG_ANSWER"
    assert data["before"] == "PASSED" and event.source == "grader"
    held = _held(client.app, "alice")
    # alice's only pass is gone: no first pass, no speed achievements; the compile stays hers
    assert not {"first_correct", "beat_naive", "beat_tiled"} & held and "first_compile" in held
    revoked = {e.subject for e in _events(client.app, "alice", "achievement_revoked")}
    assert {"first_correct", "beat_naive", "beat_tiled"} <= revoked

    _override(client, g, sub, "PASSED", "the fixed-size path is fine after all")
    assert {"first_correct", "beat_naive", "beat_tiled"} <= _held(client.app, "alice")
    assert len(_events(client.app, "alice", "verdict_overridden")) == 2


def test_the_learner_sees_the_graders_verdict_in_panel_json_and_bell_in_their_language(app_client):
    client, tokens, ids = setup(app_client)
    g, sub, alice = tokens["gina"], ids["alice_pass"], tokens["alice"]
    _override(client, g, sub, "WRONG_ANSWER", "hard-codes the 1024 case")

    panel = client.get(f"/api/panel/submissions/{sub}?lang=ko", headers=bearer(alice))
    assert panel.status_code == 200 and panel.headers["cache-control"] == "no-store"
    body = panel.json()
    assert body["verdict"] == "WRONG_ANSWER" and body["engine_verdict"] == "PASSED" and body["overridden"]
    assert body["xp"] == 0 and body["tiers"] and not any(t["met"] for t in body["tiers"])
    assert body["verdict_label"] == "오답" and body["reviews"][0]["note"] == "hard-codes the 1024 case"
    html = client.get(f"/en/panel/submissions/{sub}", headers=bearer(alice)).text
    assert "data-override-rule" in html and "data-tiers-void" in html and 'data-xp-earned="0"' in html
    # nobody else's submission is shown; an id past the database's range is refused, not a 500
    assert client.get(f"/api/panel/submissions/{sub}", headers=bearer(tokens["bob"])).status_code == 404
    assert client.get("/api/panel/submissions/99999999999999999999", headers=bearer(alice)).status_code == 422

    for lang, words in (("ko", ("채점자가", "오답")), ("en", ("A grader changed the verdict", "Wrong answer"))):
        bell = client.get(f"/api/notifications?lang={lang}", headers=bearer(alice)).json()
        [note] = [n for n in bell["notifications"] if n["kind"] == "verdict"]
        assert note["lang"] == lang and note["note"] == "hard-codes the 1024 case"
        assert all(w in note["text"] for w in words), note["text"]
        assert note["review"]["submission"] == sub and note["link"] and f"submission={sub}" in note["link"]
        assert bell["unread"] >= 1
    browser, _csrf = cookie_login(client.app, "alice")  # the bell's page, as the learner's browser sees it
    page = browser.get("/ko/notifications").text
    assert "채점자가" in page and "hard-codes the 1024 case" in page
    # the grader hears nothing about their own action; bob hears nothing at all
    assert not [n for n in client.get("/api/notifications", headers=bearer(g)).json()["notifications"]
                if n["kind"] == "verdict"]
    assert not [n for n in client.get("/api/notifications", headers=bearer(tokens["bob"])).json()["notifications"]
                if n["kind"] == "verdict"]


def test_a_repeated_override_adds_nothing(app_client):
    client, tokens, ids = setup(app_client)
    g, sub = tokens["gina"], ids["alice_pass"]
    first = _override(client, g, sub, "WRONG_ANSWER", "hard-codes the 1024 case")
    again = _override(client, g, sub, "WRONG_ANSWER", "hard-codes the 1024 case")  # a double click
    assert again["id"] == first["id"]
    with app_services(client.app).session_factory() as db:
        assert db.scalar(select(func.count()).select_from(SubmissionReview)
                         .where(SubmissionReview.kind == "override")) == 1
        assert db.scalar(select(func.count()).select_from(Notification).where(Notification.kind == "verdict")) == 1
    assert len(_events(client.app, "alice", "verdict_overridden")) == 1
