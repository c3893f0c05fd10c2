"""SQLAlchemy engine, sessions and the declarative ``Base`` of every ORM model.

SQLite gets WAL mode and enforced foreign keys. Each feature's models module subclasses ``Base``;
``app/models.py`` imports all of them, so ``Base.metadata`` there is the whole schema (Alembic, tests).
"""
from __future__ import annotations

from typing import Any, TypeVar, cast

from sqlalchemy import ColumnElement, CursorResult, Engine, Executable, create_engine, event, inspect, select, update
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, InstrumentedAttribute, Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry


class Base(DeclarativeBase):
    pass


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers proceed while one writer commits; NORMAL sync is safe with WAL.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def rows_changed(db: Session, statement: Executable) -> int:
    """How many rows an UPDATE or DELETE matched (SQLAlchemy types execute() as a plain Result, whose
    rowcount only the cursor result of a DML statement has)."""
    return cast("CursorResult[Any]", db.execute(statement)).rowcount or 0


def lock_rows(db: Session, column: InstrumentedAttribute[Any], *where: ColumnElement[bool]) -> None:
    """Hold a write lock on the rows of ``column``'s table that match ``where`` until the transaction ends.

    A check that counts rows and then changes one ("is this the last administrator?") is only true while
    nobody else changes them: every such change takes this lock first and counts after it, so the second
    one counts what the first committed. PostgreSQL: the matching rows, locked in primary-key order (no
    deadlock between two changes); SQLite: a write that changes nothing (``column`` set to itself) takes
    the database's single write lock (reads before it ran outside any transaction), held until commit.
    """
    entity = column.class_
    if db.get_bind().dialect.name == "sqlite":
        db.execute(update(entity).where(*where).values({column.key: column}))
    else:
        key = inspect(entity).primary_key
        db.execute(select(*key).where(*where).order_by(*key).with_for_update())


Row = TypeVar("Row")


def get_or_create(db: Session, model: type[Row], key: Any, **values: Any) -> Row:
    """The row of ``model`` whose primary key is ``key``, made from ``values`` (the key included) when
    there is none. A learner's first save sent twice at once (a double click, a retrying client) made
    two inserts of one key and the second answered 500: its insert now fails inside a savepoint, and it
    reads the row the first one made."""
    row = db.get(model, key)
    if row is not None:
        return row
    try:
        with db.begin_nested():
            row = model(**values)
            db.add(row)
        return row
    except IntegrityError:
        row = db.get(model, key, populate_existing=True)
        if row is None:  # the other insert was rolled back: ours failed for another reason
            raise
        return row


def make_engine(url: str) -> Engine:
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        # Sessions are used from the threadpool as well as the event loop thread.
        kwargs["connect_args"] = {"check_same_thread": False}
        if ":memory:" not in url and url not in ("sqlite://", "sqlite:///"):
            # Keep a connection per busy thread (the threadpool runs up to 40): with the default
            # 5 (+10 overflow) signed-in views under load opened and closed a connection each,
            # re-running the PRAGMAs (profiled with py-spy).
            kwargs.update(pool_size=40, max_overflow=20)
    else:
        # A pooled connection is checked before use: after a database restart the first request gets a
        # new connection instead of an error (a connection a server no longer has fails this check).
        kwargs["pool_pre_ping"] = True
        # A database host that does not answer at all: fail in seconds (503, readiness) instead of TCP's minutes.
        kwargs["connect_args"] = {"connect_timeout": 5}
    engine = create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)
