"""The lesson page stays cheap for visitors: comments arrive by a separate fetch, so the cached
page runs no SQL at all; and a long thread's list is served in reasonable time."""
from __future__ import annotations

import time

from sqlalchemy import event

from tests.comments.conftest import LESSON


def _count_sql(app):
    """Statements a page request could run for comments or the reader; background threads (view
    counter flush, grading dispatcher) touch other tables and are not counted."""
    statements = []

    def record(_conn, _cursor, statement, *_args, **_kwargs):
        if any(table in statement for table in ("comment", "notification", "auth_session", "FROM user")):
            statements.append(statement)

    event.listen(app.state.engine, "before_cursor_execute", record)
    return statements


def test_visitor_lesson_page_runs_no_sql_and_stays_fast(app, kim, visitor):
    kim.comment("a comment that must not slow the page")
    visitor.client.get(f"/en/lessons/{LESSON}")  # fill the page cache
    statements = _count_sql(app)
    started = time.perf_counter()
    for _ in range(50):
        page = visitor.client.get(f"/en/lessons/{LESSON}")
        assert page.status_code == 200
    per_request = (time.perf_counter() - started) / 50
    assert statements == []
    assert "data-comments" in page.text and "a comment that must not" not in page.text
    assert per_request < 0.2, per_request  # a cached page through the whole ASGI stack (~3 ms idle)


def test_long_thread_lists_quickly(app, kim, lee, visitor):
    from app.accounts.users import find_user
    from app.comments import service

    with app.state.session_factory() as db:
        users = [find_user(db, "kim"), find_user(db, "lee")]
        app.state.comments.comment_rates = [(10_000, 60)]
        parent = None
        for i in range(120):
            comment = service.post(db, app.state.comments, users[i % 2], LESSON, "en", f"comment {i} with `code`",
                                   parent.id if parent is not None and i % 3 else None)
            parent = comment
        db.commit()
    started = time.perf_counter()
    data = visitor.listing()
    elapsed = time.perf_counter() - started
    assert data["count"] == 120 and data["pages"] > 1
    assert elapsed < 1.0, elapsed
