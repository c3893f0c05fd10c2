"""Local progress merged at sign-in cannot forge time-based achievements. Before the fix
seven /api/progress/merge calls with ever-earlier completion dates gave a new account the 3- and 7-day
streak achievements in one second. Streaks now count days the server itself saw (events' recorded_at).
Real HTTP through the app, real SQLite and PostgreSQL."""
from __future__ import annotations

import datetime as dt

from app.accounts.users import find_user
from app.core.clock import utcnow
from app.core.services import app_services
from app.lessons.catalog import Catalog
from app.progress import events as ev
from app.progress.models import Event
from tests.accounts.conftest import LESSON, page_csrf


def _merge(client, payload):
    answer = client.post("/api/progress/merge?lang=en", json=payload, headers={"X-CSRF-Token": page_csrf(client)})
    assert answer.status_code == 200, answer.text
    return answer.json()


def _earned(client) -> set[str]:
    return {a["id"] for a in client.get("/api/me?lang=en").json()["achievements"]}


def test_merged_dates_do_not_make_a_streak(user_client, app):
    slugs = [lesson.slug for lesson in app_services(app).get(Catalog).snapshot().visible(False)]
    today = utcnow().date()
    for days_ago in range(1, 8):  # ever earlier: each merge adds an earlier completion
        slug = slugs[days_ago % len(slugs)]
        _merge(user_client, {"completed": {slug: (today - dt.timedelta(days=days_ago)).isoformat()}})
    earned = _earned(user_client)
    assert "first_lesson" in earned  # the merged completions themselves count
    assert not {"streak_3", "streak_7"} & earned, earned


def test_days_the_server_saw_still_make_a_streak(user_client, app):
    with app_services(app).session_factory() as db:
        user = find_user(db, "kim")
        now = utcnow()
        for days_ago in (2, 1):
            when = now - dt.timedelta(days=days_ago)
            db.add(Event(user_id=user.id, epoch=user.progress_epoch, kind=ev.LESSON_OPENED, subject=LESSON,
                         lang="en", data="{}", source="server", occurred_at=when, recorded_at=when))
        db.commit()
    done = user_client.post(f"/api/progress/lessons/{LESSON}/complete?lang=en", json={},
                            headers={"X-CSRF-Token": page_csrf(user_client)})  # today: the server sees this one
    assert done.status_code == 200, done.text
    assert "streak_3" in _earned(user_client)
