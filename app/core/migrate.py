"""Apply Alembic migrations from code (``python -m app migrate``, the ``serve`` prestart step).

Migrations run once per deployment, before web workers start: ``serve`` migrates and then tells
its uvicorn workers not to (``MKC_MIGRATE_ON_START=false``). Whoever still migrates concurrently
(``uvicorn --workers N`` started by hand, two hosts starting at once) is serialised by a lock, so two
processes never both see an empty database and both create its tables:
- SQLite: an exclusive ``flock`` on a file beside the database (SQLite's own locks are taken per
  statement, too late: both processes would have read "no version table" already);
- PostgreSQL: a transaction-scoped advisory lock taken in the migration's own transaction.
"""
from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.environment import NameFilterParentNames
from sqlalchemy import Connection, Engine, text

from app.core.config import PROJECT_ROOT

MIGRATIONS_DIR = PROJECT_ROOT / "migrations"
# Any constant works; it only has to be the same in every process of one deployment.
PG_ADVISORY_LOCK_KEY = 0x4D4B43_0001  # "MKC" + 1


# Tables that live in our database but belong to a library with its own schema (procrastinate's job
# queue, applied by migration 0010): autogenerate and the models-vs-migrations test leave them alone.
FOREIGN_TABLE_PREFIXES = ("procrastinate_",)


def include_name(name: str | None, type_: str, _parent_names: NameFilterParentNames) -> bool:
    return not (type_ == "table" and name and name.startswith(FOREIGN_TABLE_PREFIXES))


class DatabaseNotMigrated(RuntimeError):
    """The database is behind the code's migrations and this process was told not to migrate."""


def alembic_config(engine: Engine | None = None) -> Config:
    cfg = Config(str(MIGRATIONS_DIR / "alembic.ini"))
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["skip_logging"] = True
    if engine is not None:
        # '%' would be read as interpolation by configparser.
        cfg.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    return cfg


def sqlite_file(engine: Engine) -> Path | None:
    """The database file of a file-backed SQLite engine, else None (in-memory or another dialect)."""
    if engine.dialect.name != "sqlite":
        return None
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        return None
    return Path(database)


@contextlib.contextmanager
def migration_lock(engine: Engine) -> Iterator[None]:
    """Hold the cross-process SQLite migration lock (a no-op for other databases; see module doc)."""
    path = sqlite_file(engine)
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.with_name(path.name + ".migrate-lock")
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)  # blocks until the other migrator is done
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _lock_in_transaction(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_ADVISORY_LOCK_KEY})


def upgrade_to_head(engine: Engine) -> None:
    cfg = alembic_config(engine)
    with migration_lock(engine), engine.begin() as connection:
        _lock_in_transaction(connection)
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "head")


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def require_head(engine: Engine) -> None:
    """Raise DatabaseNotMigrated unless the database is at the code's head revision."""
    current, head = current_revision(engine), head_revision()
    if current != head:
        raise DatabaseNotMigrated(
            f"the database is at revision {current or 'none'}, the code expects {head}: "
            "run `python -m app migrate` (or start the server with `python -m app serve`, which migrates first)")
