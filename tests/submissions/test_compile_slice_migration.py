"""The long-compile mark (submission.long_compile_ms) migrates down and up on SQLite and PostgreSQL."""
from __future__ import annotations


def test_the_long_compile_column_migrates_down_and_up(db_url):
    from alembic import command
    from sqlalchemy import inspect

    from app.core.db import make_engine
    from app.core.migrate import alembic_config, upgrade_to_head

    engine = make_engine(db_url)
    upgrade_to_head(engine)
    assert "long_compile_ms" in {c["name"] for c in inspect(engine).get_columns("submission")}
    config = alembic_config(engine)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0013_ops")
    assert "long_compile_ms" not in {c["name"] for c in inspect(engine).get_columns("submission")}
    upgrade_to_head(engine)
    assert "long_compile_ms" in {c["name"] for c in inspect(engine).get_columns("submission")}
    engine.dispose()
