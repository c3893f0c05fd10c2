"""The signed-in reader's fast path: a repeat view reads one SELECT and writes nothing, yet every
change to progress or to the session shows on the very next page."""
from __future__ import annotations

import datetime as dt

from sqlalchemy import event, func, select, update

from app.accounts.models import AuthSession, User
from app.core.services import app_services
from app.progress.models import Event

from .conftest import LESSON, page_csrf, signup

FIRST = "matrix-layout-coalescing"


def strip_xp(html: str) -> int:
    marker = 'data-xp="'
    start = html.index(marker) + len(marker)
    return int(html[start:html.index('"', start)])


def complete(client, slug, lang="en"):
    response = client.post(f"/api/progress/lessons/{slug}/complete?lang={lang}", json={"lang": lang},
                           headers={"X-CSRF-Token": page_csrf(client)})
    assert response.status_code == 200, response.text
    return response.json()


class StatementCounter:
    """Every statement the database runs: SQLAlchemy's cursor events, and on SQLite the driver's own
    trace of each connection, since the reader's peek runs on the raw sqlite3 cursor
    (app/progress/reader_cache.py, _SqlitePeek) where no SQLAlchemy event sees it."""

    def __init__(self, engine):
        self.engine, self.statements = engine, []

    def _record(self, conn, cursor, statement, *args):
        self.statements.append(statement)

    def _trace(self, dbapi_connection, record):
        dbapi_connection.set_trace_callback(self.statements.append)

    def __enter__(self):
        if self.engine.dialect.name == "sqlite":
            self.engine.dispose()  # new connections, each traced from its first statement
            event.listen(self.engine, "connect", self._trace)
        else:
            event.listen(self.engine, "before_cursor_execute", self._record)
        return self

    def __exit__(self, *exc):
        if self.engine.dialect.name == "sqlite":
            event.remove(self.engine, "connect", self._trace)
            self.engine.dispose()
        else:
            event.remove(self.engine, "before_cursor_execute", self._record)


def engine_of(app):
    with app_services(app).session_factory() as db:
        return db.get_bind()


def test_a_repeat_view_is_one_select_and_no_write(user_client, app):
    path = f"/en/lessons/{LESSON}"
    user_client.get(path)
    user_client.get(path)  # the first view wrote 'lesson opened'; the second remembers the state
    with StatementCounter(engine_of(app)) as counter:
        response = user_client.get(path)
    assert response.status_code == 200 and "data-signed-in" in response.text
    assert 1 <= len(counter.statements) <= 2, counter.statements  # the session is still checked
    assert all(s.lstrip().upper().startswith("SELECT") for s in counter.statements), counter.statements


def test_repeated_views_store_lesson_opened_once_per_language(user_client, app):
    for _ in range(5):
        assert user_client.get(f"/en/lessons/{LESSON}").status_code == 200
        assert user_client.get(f"/ko/lessons/{LESSON}").status_code == 200
    with app_services(app).session_factory() as db:
        rows = db.execute(select(Event.lang, func.count()).where(Event.kind == "lesson_opened")
                          .group_by(Event.lang)).all()
    assert sorted(rows) == [("en", 1), ("ko", 1)]


def test_the_page_shows_a_new_completion_and_xp_at_once(user_client, app):
    path = f"/en/lessons/{LESSON}"
    for _ in range(3):
        before = user_client.get(path).text
    assert strip_xp(before) == 0 and 'data-completed=""' in before
    answer = complete(user_client, FIRST)
    after = user_client.get(path).text
    assert strip_xp(after) == answer["strip"]["xp"] > 0
    assert f'data-completed="{FIRST}"' in after
    assert f'data-completed="{FIRST}"' in user_client.get("/en/").text


def test_xp_written_elsewhere_shows_at_once(user_client, app):
    """A write that bypasses every service function (another process, a grader's override)
    still shows: the state is keyed by what is in the database, not by who wrote it."""
    from app.progress import xp

    path = f"/en/lessons/{LESSON}"
    for _ in range(3):
        assert strip_xp(user_client.get(path).text) == 0
    with app_services(app).session_factory() as db:
        user = db.scalar(select(User))
        xp.adjust(db, user, 40, "test", "test:1")
        db.commit()
    assert strip_xp(user_client.get(path).text) == 40


def test_reset_shows_at_once(user_client, app):
    complete(user_client, FIRST)
    path = f"/en/lessons/{LESSON}"
    for _ in range(3):
        assert strip_xp(user_client.get(path).text) > 0
    token = page_csrf(user_client)
    user_client.post("/en/profile/reset", data={"csrf_token": token, "confirm": "yes"})
    page = user_client.get(path).text
    assert strip_xp(page) == 0 and 'data-completed=""' in page
    with app_services(app).session_factory() as db:  # a new epoch: 'lesson opened' is stored again for it
        epochs = db.scalars(select(Event.epoch).where(Event.kind == "lesson_opened")).all()
    assert sorted(set(epochs)) == [0, 1]


def test_achievement_earned_elsewhere_is_announced_on_the_next_view(user_client, app):
    from app.progress.social import record_comment_posted

    path = f"/ko/lessons/{LESSON}"
    for _ in range(3):
        assert 'class="announce__item"' not in user_client.get(path).text
    with app_services(app).session_factory() as db:
        record_comment_posted(db, db.scalar(select(User)), 1)
        db.commit()
    assert 'class="announce__item"' in user_client.get(path).text
    assert 'class="announce__item"' not in user_client.get(path).text


def test_signed_out_and_revoked_sessions_are_refused_on_the_next_view(new_client, app):
    phone, laptop = new_client(), new_client()
    assert signup(phone, "lee").status_code == 303
    from .conftest import signin
    assert signin(laptop, "lee").status_code == 303
    path = f"/en/lessons/{LESSON}"
    for client in (phone, laptop):
        for _ in range(3):
            assert "data-signed-in" in client.get(path).text
    # "sign out everywhere" deletes every session row: both browsers are visitors at once
    with app_services(app).session_factory() as db:
        db.execute(AuthSession.__table__.delete())
        db.commit()
    assert "data-signed-in" not in phone.get(path).text
    assert "data-signed-in" not in laptop.get(path).text


def test_an_expired_session_is_refused_and_removed(user_client, app):
    path = f"/en/lessons/{LESSON}"
    for _ in range(3):
        assert "data-signed-in" in user_client.get(path).text
    with app_services(app).session_factory() as db:
        db.execute(update(AuthSession).values(expires_at=dt.datetime(2021, 1, 1)))
        db.commit()
    assert "data-signed-in" not in user_client.get(path).text
    with app_services(app).session_factory() as db:
        assert db.scalar(select(func.count()).select_from(AuthSession)) == 0


def test_a_role_change_shows_in_the_header_at_once(user_client, app):
    path = f"/en/lessons/{LESSON}"
    for _ in range(3):
        assert "data-graders-link" not in user_client.get(path).text
    with app_services(app).session_factory() as db:
        db.scalar(select(User)).role = "grader"
        db.commit()
    assert "data-graders-link" in user_client.get(path).text
