"""Progress over HTTP: merging a visitor's browser progress, true progress on pages, the
profile, announcements, reset and account deletion."""
from __future__ import annotations

import datetime as dt
import json

from sqlalchemy import func, select

from app.accounts.models import ApiToken, AuthSession, User
from app.core.services import app_services
from app.lessons.catalog import Catalog
from app.progress.models import Event, UserAchievement, XpEntry

from .conftest import CSRF_FIELD, LESSON, page_csrf, signup

FIRST = "matrix-layout-coalescing"
SECOND = "parallel-reduction"


def merge(client, payload, lang="en"):
    response = client.post(f"/api/progress/merge?lang={lang}", json=payload, headers={"X-CSRF-Token": page_csrf(client)})
    assert response.status_code == 200, response.text
    return response.json()


def complete(client, slug, lang="en"):
    response = client.post(f"/api/progress/lessons/{slug}/complete?lang={lang}", json={"lang": lang},
                           headers={"X-CSRF-Token": page_csrf(client)})
    assert response.status_code == 200, response.text
    return response.json()


def lesson_xp(app, slug):
    return app_services(app).get(Catalog).snapshot().get(slug).meta.xp


def test_merge_is_a_union_and_pays_once(user_client, app):
    complete(user_client, FIRST)
    answer = merge(user_client, {"completed": {SECOND: "2026-11-20T08:00:00Z", FIRST: "2026-11-21T09:00:00Z"}})
    assert set(answer["lessons"]) == {FIRST, SECOND}  # nothing lost, both sides kept
    assert answer["strip"]["lessons_done"] == 2
    assert answer["strip"]["xp"] == lesson_xp(app, FIRST) + lesson_xp(app, SECOND)
    assert 'data-strip' in answer["strip_html"] and "2</strong>/7" in answer["strip_html"]
    again = merge(user_client, {"completed": {SECOND: "2026-11-20T08:00:00Z"}})
    assert again["strip"]["xp"] == answer["strip"]["xp"] and again["merged"] == []


def test_merge_keeps_the_earliest_completion_time(user_client, app):
    complete(user_client, FIRST)  # now, on the server
    earlier = merge(user_client, {"completed": {FIRST: "2026-11-01T10:00:00Z"}})
    assert earlier["lessons"][FIRST] == "2026-11-01T10:00:00Z" and earlier["merged"] == [FIRST]
    later = merge(user_client, {"completed": {FIRST: "2026-11-10T10:00:00Z"}})
    assert later["lessons"][FIRST] == "2026-11-01T10:00:00Z" and later["merged"] == []
    date_only = merge(user_client, {"completed": {FIRST: "2026-10-30"}})  # older browsers stored dates
    assert date_only["lessons"][FIRST] == "2026-10-30T00:00:00Z"
    with app_services(app).session_factory() as db:
        assert db.scalar(select(func.count()).select_from(XpEntry)) == 1


def test_merge_distrusts_the_browser(user_client):
    future = (dt.datetime.now(dt.UTC) + dt.timedelta(days=30)).isoformat()
    answer = merge(user_client, {"completed": {FIRST: future, "no-such-lesson": "2026-11-01", SECOND: "yesterday",
                                               "<b>x</b>": "2026-11-01"}})
    assert set(answer["lessons"]) == {FIRST}
    assert dt.datetime.fromisoformat(answer["lessons"][FIRST].rstrip("Z")) <= dt.datetime.utcnow()
    assert set(answer["ignored"]) == {"no-such-lesson", SECOND, "<b>x</b>"}
    # exercise results cannot come from the browser: the merge has no way to say "passed"
    bad = user_client.post("/api/progress/merge", json={"completed": {FIRST: 5}}, headers={"X-CSRF-Token": page_csrf(user_client)})
    assert bad.status_code == 422


def test_bilingual_comes_from_what_the_server_saw_not_from_a_merged_claim(user_client):
    answer = merge(user_client, {"completed": {FIRST: "2026-11-20T08:00:00Z"}, "read": {FIRST: ["ko", "en", "fr"]}})
    assert {a["id"] for a in answer["new_achievements"]} == {"first_lesson"}  # the browser's claim alone: no
    csrf = {"X-CSRF-Token": page_csrf(user_client)}
    first = user_client.post(f"/api/progress/lessons/{FIRST}/complete", json={"lang": "ko"}, headers=csrf).json()
    assert "bilingual" not in {a["id"] for a in first["new_achievements"]}
    second = user_client.post(f"/api/progress/lessons/{FIRST}/complete", json={"lang": "en"}, headers=csrf).json()
    assert "bilingual" in {a["id"] for a in second["new_achievements"]}


def test_pages_show_true_progress_for_the_signed_in_reader(user_client, new_client, app):
    complete(user_client, LESSON, "ko")
    page = user_client.get("/en/").text
    assert f'data-completed="{LESSON}"' in page and "1</strong>/7" in page
    assert f"{lesson_xp(app, LESSON)}</strong> XP" in page
    lesson = user_client.get(f"/ko/lessons/{LESSON}")
    assert lesson.headers["cache-control"] == "private, no-store"
    assert 'name="csrf-token"' in lesson.text and f'data-completed="{LESSON}"' in lesson.text
    visitor = new_client().get("/en/").text  # the shared cached page stays a visitor's page
    assert "data-signed-in" not in visitor and 'data-completed=""' in visitor and "csrf-token" not in visitor


def test_opening_a_lesson_is_an_event_once_a_day(user_client, app):
    for _ in range(3):
        user_client.get(f"/en/lessons/{LESSON}")
    user_client.get(f"/ko/lessons/{LESSON}")
    with app_services(app).session_factory() as db:
        rows = db.execute(select(Event.kind, Event.lang).where(Event.kind == "lesson_opened")).all()
    assert sorted(rows) == [("lesson_opened", "en"), ("lesson_opened", "ko")]


def test_new_achievements_are_announced_once(user_client, app):
    answer = complete(user_client, FIRST)
    assert [a["id"] for a in answer["new_achievements"]] == ["first_lesson"]
    assert 'class="announce__item"' not in user_client.get("/en/").text  # already shown by the script
    # earned elsewhere (e.g. by the grader) -> announced on the next page, then not again
    from app.progress.social import record_comment_posted

    with app_services(app).session_factory() as db:
        user = db.scalar(select(User))
        record_comment_posted(db, user, 1)
        db.commit()
    page = user_client.get("/ko/").text
    assert "업적 달성" in page and "첫 댓글" in page
    assert 'class="announce__item"' not in user_client.get("/ko/").text


def test_profile_shows_level_history_achievements_lessons(user_client):
    complete(user_client, FIRST)
    page = user_client.get("/en/profile").text
    assert 'data-achievement="first_lesson" data-earned="yes"' in page
    assert 'data-achievement="streak_7" data-earned="no"' in page
    assert f'data-xp-entry="lesson:{FIRST}"' in page
    assert f'data-profile-lesson="{FIRST}"' in page and "No submissions yet." in page
    assert "1/12" in page
    korean = user_client.get("/ko/profile").text
    assert "XP 기록" in korean and "아직 제출한 커널이 없어요." in korean


def test_timezone_setting(user_client, app):
    page = user_client.get("/en/profile").text
    token = CSRF_FIELD.search(page).group(1)
    assert user_client.post("/en/profile/timezone", data={"csrf_token": token, "tz": "Mars/Olympus"}).status_code == 400
    user_client.post("/en/profile/timezone", data={"csrf_token": token, "tz": "Asia/Seoul"})
    with app_services(app).session_factory() as db:
        assert db.scalar(select(User.tz)) == "Asia/Seoul"


def test_reset_needs_confirmation_and_voids(user_client, app):
    complete(user_client, FIRST)
    confirm_page = user_client.get("/en/profile/reset")
    assert confirm_page.status_code == 200 and "data-confirm-reset" in confirm_page.text
    token = CSRF_FIELD.search(confirm_page.text).group(1)
    assert user_client.post("/en/profile/reset", data={"csrf_token": token}).status_code == 400  # unconfirmed
    assert user_client.get("/api/me").json()["strip"]["xp"] > 0
    user_client.post("/en/profile/reset", data={"csrf_token": token, "confirm": "yes"})
    me = user_client.get("/api/me").json()
    assert me["strip"]["xp"] == 0 and me["lessons"] == {} and me["achievements"] == []
    with app_services(app).session_factory() as db:  # kept for audit
        assert db.scalar(select(func.count()).select_from(XpEntry).where(XpEntry.voided.is_(True))) == 1
        assert db.scalar(select(func.count()).select_from(UserAchievement)) == 1
    assert complete(user_client, FIRST)["strip"]["xp"] == lesson_xp(app, FIRST)  # can be earned again


def test_delete_account_removes_personal_data(user_client, new_client, app):
    complete(user_client, FIRST)
    other = new_client()
    signup(other, "lee")
    complete(other, FIRST)
    page = user_client.get("/en/profile/delete").text
    token = CSRF_FIELD.search(page).group(1)
    wrong = user_client.post("/en/profile/delete", data={"csrf_token": token, "password": "not my password",
                                                         "contributions": "keep"})
    assert wrong.status_code == 400 and "The password is not correct." in wrong.text
    done = user_client.post("/en/profile/delete", data={"csrf_token": token, "password": "correct horse battery",
                                                        "contributions": "keep"}, follow_redirects=False)
    assert done.status_code == 303
    with app_services(app).session_factory() as db:
        assert [u.username for u in db.scalars(select(User))] == ["lee"]
        lee = db.scalar(select(User.id))
        for model in (AuthSession, ApiToken, Event, XpEntry, UserAchievement):
            assert all(uid == lee for uid in db.scalars(select(model.user_id))), model.__name__
    assert "data-signed-in" not in user_client.get("/en/").text


def graded(user_id, exercise, verdict):
    """A finished row as the grader leaves it: a done row always holds the engine's Result."""
    from app.submissions.models import Submission

    result = json.dumps({"verdict": verdict, "exercise": exercise, "message": {"code": verdict, "params": {}}})
    return Submission(user_id=user_id, exercise_id=exercise, source="//", state="done", verdict=verdict, result=result)


def test_profile_lists_the_learners_own_submissions(user_client, new_client, app):
    from app.submissions.models import Submission

    other = new_client()
    signup(other, "lee")
    with app_services(app).session_factory() as db:
        kim, lee = (db.scalar(select(User.id).where(User.username == n)) for n in ("kim", "lee"))
        # nothing grades in these tests (conftest's app): the queued row stays queued
        db.add_all([graded(kim, "gemm", "WRONG_ANSWER"),
                    Submission(user_id=kim, exercise_id="transpose", source="//", state="queued"),
                    graded(lee, "col_sum", "PASSED")])
        db.commit()
    page = user_client.get("/ko/profile").text
    assert page.count("data-submission=") == 2 and "오답" in page and "대기 중" in page and "col_sum" not in page


def test_the_delete_confirmation_asks_for_the_password_in_each_language(user_client, new_client):
    for lang, heading in (("en", "Delete my account"), ("ko", "계정 삭제")):
        page = user_client.get(f"/{lang}/profile/delete")
        assert page.status_code == 200 and f'action="/{lang}/profile/delete"' in page.text
        assert 'name="password"' in page.text and heading in page.text
    # a visitor is sent to sign in first, on either confirmation page
    for action in ("reset", "delete"):
        visitor = new_client().get(f"/en/profile/{action}", follow_redirects=False)
        assert visitor.status_code == 303 and visitor.headers["location"].startswith("/en/signin")
