"""INSERT that silently does nothing when a UNIQUE constraint says the row exists already.

Done in one statement (ON CONFLICT DO NOTHING) rather than check-then-insert, so two
concurrent requests cannot both pass the check: the database arbitrates.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session


def insert_once(session: Session, model: type[Any], **values: Any) -> int | None:
    """Insert a row of ``model``; returns its id, or None when a unique constraint already holds it."""
    dialect = session.get_bind().dialect.name
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    elif dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert  # type: ignore[assignment]  # same API, its own class
    else:  # pragma: no cover - other databases fall back to a savepoint
        from sqlalchemy.exc import IntegrityError
        row = model(**values)
        try:
            with session.begin_nested():
                session.add(row)
        except IntegrityError:
            return None
        return int(row.id)
    stmt = insert(model).values(**values).on_conflict_do_nothing().returning(model.id)
    return session.execute(stmt).scalar_one_or_none()
