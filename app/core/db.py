"""SQLAlchemy engine, sessions and the declarative ``Base`` of every ORM model.

SQLite gets WAL mode and enforced foreign keys. Each feature's models module subclasses ``Base``;
``app/models.py`` imports all of them, so ``Base.metadata`` there is the whole schema (Alembic, tests).
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
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


def make_engine(url: str) -> Engine:
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        # Sessions are used from the threadpool as well as the event loop thread.
        kwargs["connect_args"] = {"check_same_thread": False}
        if ":memory:" not in url and url not in ("sqlite://", "sqlite:///"):
            # Keep a connection per busy thread (the threadpool runs up to 40): with the default
            # 5 (+10 overflow) signed-in views under load opened and closed a connection each,
            # re-running the PRAGMAs (profiled with py-spy, issue 17 item 10).
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
