"""The lesson page stays cheap for visitors: comments arrive by a separate fetch, so the cached
page runs no SQL at all; and a long thread's list costs a few statements, not one per comment.
(Speed itself is measured by `python -m app bench`, never asserted here.)"""
from __future__ import annotations

from sqlalchemy import event

from app.comments.limits import CommentsConfig
from app.core.services import app_services
from tests.comments.conftest import LESSON


def _count_sql(app):
    """Statements a page request could run for comments or the reader; background threads (view
    counter flush, grading dispatcher) touch other tables and are not counted."""
    statements = []

    def record(_conn, _cursor, statement, *_args, **_kwargs):
        if any(table in statement for table in ("comment", "notification", "auth_session", "FROM user")):
            statements.append(statement)

    event.listen(app_services(app).engine, "before_cursor_execute", record)
    return statements


def test_visitor_lesson_page_runs_no_sql(app, kim, visitor):
    kim.comment("a comment that must not slow the page")
    visitor.client.get(f"/en/lessons/{LESSON}")  # fill the page cache
    statements = _count_sql(app)
    for _ in range(50):
        page = visitor.client.get(f"/en/lessons/{LESSON}")
        assert page.status_code == 200
    assert statements == []
    assert "data-comments" in page.text and "a comment that must not" not in page.text


def test_a_long_thread_lists_in_a_few_statements(app, kim, lee, visitor):
    from app.accounts.users import find_user
    from app.comments import service

    with app_services(app).session_factory() as db:
        users = [find_user(db, "kim"), find_user(db, "lee")]
        app_services(app).get(CommentsConfig).comment_rates = [(10_000, 60)]
        parent = None
        for i in range(120):
            comment = service.post(db, app_services(app).get(CommentsConfig), users[i % 2], LESSON, "en", f"comment {i} with `code`",
                                   parent.id if parent is not None and i % 3 else None)
            parent = comment
        db.commit()
    statements = _count_sql(app)
    data = visitor.listing()
    assert data["count"] == 120 and data["pages"] > 1
    # a page of 30 comments from a 120-comment thread: a handful of statements (3 today) whatever the
    # thread's length; one per comment or author would be 30 or more
    assert 1 <= len(statements) <= 6, statements
