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
