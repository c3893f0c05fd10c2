"""The classes' migration goes up and down on SQLite and PostgreSQL and leaves the schema as it was."""
from __future__ import annotations

from alembic import command
from sqlalchemy import inspect

from app.core.db import make_engine
from app.core.migrate import alembic_config, upgrade_to_head

NEW_TABLES = {"course_class", "class_member", "assignment", "assignment_item", "board_profile", "board_strike"}


def test_up_down_up(db_url):
    engine = make_engine(db_url)
    upgrade_to_head(engine)
    assert NEW_TABLES <= set(inspect(engine).get_table_names())
    assert "strike_id" in {c["name"] for c in inspect(engine).get_columns("notification")}
    config = alembic_config(engine)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0012_verdict_override_flow")
    inspector = inspect(engine)
    assert not NEW_TABLES & set(inspector.get_table_names())
    assert "strike_id" not in {c["name"] for c in inspector.get_columns("notification")}
    upgrade_to_head(engine)
    assert NEW_TABLES <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_down_with_rows_in_every_new_table(db_url):
    """A database that has classes, a strike and its notification goes down cleanly (the strike's
    notifications are removed first: the older schema has nowhere to keep them)."""
    from sqlalchemy import text

    engine = make_engine(db_url)
    upgrade_to_head(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO \"user\" (id, username, username_key, password_hash, role, tz, progress_epoch,"
                          " created_at) VALUES (1, 'lee', 'lee', 'x', 'learner', 'UTC', 0, '2026-12-01')"))
        conn.execute(text("INSERT INTO course_class (id, name, term, notice_lang, tz, invite_code, board_enabled,"
                          " board_hide_until_due, board_gpu, created_at) VALUES (1, 'A', '', 'ko', 'UTC', 'ABCDEFGH',"
                          " true, false, '', '2026-12-01')"))
        conn.execute(text("INSERT INTO class_member (class_id, user_id, role, source, email, joined_at)"
                          " VALUES (1, 1, 'learner', 'invite', '', '2026-12-01')"))
        conn.execute(text("INSERT INTO submission (id, user_id, exercise_id, source, launch, source_bytes, state,"
                          " verdict, created_at, updated_at, attempts, recorded) VALUES (1, 1, 'gemm', '//', 'null', 2,"
                          " 'done', 'PASSED', '2026-12-01', '2026-12-01', 1, false)"))
        conn.execute(text("INSERT INTO board_strike (id, submission_id, class_id, grader_name, reason, created_at)"
                          " VALUES (1, 1, 1, 'han', 'copy', '2026-12-01')"))
        conn.execute(text("INSERT INTO notification (user_id, strike_id, kind, created_at)"
                          " VALUES (1, 1, 'strike', '2026-12-01')"))
    config = alembic_config(engine)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0012_verdict_override_flow")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM notification")).scalar() == 0
        assert conn.execute(text("SELECT count(*) FROM submission")).scalar() == 1
    engine.dispose()
