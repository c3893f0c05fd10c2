"""A signed-in reader's session, user and progress fingerprint in ONE read-only statement, and a
per-process memo of what a page view computed for a given fingerprint.

Why a fingerprint instead of in-memory "bump on write" counters: XP, events and achievements are
written from many places (lesson completion, merges, resets, the grading dispatcher, graders'
overrides, comments, CLI replays), some of them outside this process. Rather than trust every one
of them to invalidate a cache, each view reads a few cheap aggregates straight from the database
(indexed max(id)s and counts for this user) next to the session row. Any write to the user's
events, ledger or achievements, or to the user row (epoch on reset, time zone), changes the
fingerprint, so the memo can never serve progress older than the last commit, in any process.

The session itself is never cached: the same statement looks the row up by its token hash every
time, so sign-out, "sign out everywhere" and expiry take effect on the very next request.
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Engine, bindparam, func, select
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Session

from app.accounts.models import AuthSession, User
from app.progress.learner import LearnerState
from app.progress.models import Event, UserAchievement, XpEntry

MAX_MEMO_USERS = 10_000  # past this the memo starts over (it is only a cache)
MAX_OPENED = 200_000


def _fingerprint_columns():
    """Correlated scalar subqueries over the user's rows; each uses an index on user_id."""
    in_epoch_events = (Event.user_id == User.id) & (Event.epoch == User.progress_epoch)
    live_xp = (XpEntry.user_id == User.id) & XpEntry.voided.is_(False)
    mine = UserAchievement.user_id == User.id
    return (
        select(func.max(Event.id)).where(in_epoch_events).scalar_subquery(),
        select(func.max(XpEntry.id)).where(XpEntry.user_id == User.id).scalar_subquery(),
        select(func.count(XpEntry.id)).where(live_xp).scalar_subquery(),
        select(func.coalesce(func.sum(XpEntry.amount), 0)).where(live_xp).scalar_subquery(),
        select(func.max(UserAchievement.id)).where(mine).scalar_subquery(),
        select(func.count(UserAchievement.id)).where(mine, UserAchievement.announced.is_(False)).scalar_subquery(),
    )


# Built once: composing the expression costs more than running it (profiled: ~0.35 ms a view).
_READER_STATEMENT = (select(AuthSession, User, *_fingerprint_columns())
                     .join(User, User.id == AuthSession.user_id)
                     .where(AuthSession.token_hash == bindparam("token_hash")))


# The same statement in Core terms for a repeat view: plain rows, no ORM session or identity map
# (profiled: the ORM load cost ~0.45 ms of a ~1 ms signed-in view; this costs ~0.12 ms).
_SESSION_PEEK = (AuthSession.id, AuthSession.csrf_token, AuthSession.expires_at)
_PEEK_STATEMENT = (select(*_SESSION_PEEK, *User.__table__.columns, *_fingerprint_columns())
                   .select_from(AuthSession.__table__.join(User.__table__, User.id == AuthSession.user_id))
                   .where(AuthSession.token_hash == bindparam("token_hash")))
_USER_KEYS = tuple(c.key for c in User.__table__.columns)


@dataclass
class ReaderPeek:
    """What a repeat view needs, read without an ORM session. ``user`` holds the user row's
    columns as attributes (not an ORM object): fine for templates and cache keys, not for writes."""
    session_id: int
    csrf_token: str
    expires_at: Any
    user: Any
    fingerprint: tuple


def peek_reader(engine: Engine, token_hash: str) -> ReaderPeek | None:
    """load_reader's answer through one SELECT on a pooled connection: the statement above as SQLAlchemy
    compiles it, run on SQLite's own cursor (see _SqlitePeek), or through Core on other databases."""
    if engine.dialect.name == "sqlite":
        row = _sqlite_peek(engine.dialect).run(engine, token_hash)
    else:
        with engine.connect() as conn:
            row = conn.execute(_PEEK_STATEMENT, {"token_hash": token_hash}).first()
    if row is None:
        return None
    n = len(_SESSION_PEEK)
    # a plain namespace with the row's columns (an ORM User() costs ~70 µs to construct)
    user = SimpleNamespace(**dict(zip(_USER_KEYS, row[n:n + len(_USER_KEYS)], strict=True)))
    aggregates = tuple(row[n + len(_USER_KEYS):])
    return ReaderPeek(row[0], row[1], row[2], user, _fingerprint(user, aggregates))


class _SqlitePeek:
    """_PEEK_STATEMENT compiled once by SQLAlchemy for SQLite, run on the pooled sqlite3 connection's
    own cursor, its values converted by the column types' own result processors (DateTime from
    SQLite's text). Measured on a repeat view: Core's Connection, transaction and
    Result objects cost ~55 µs around a ~20 µs query; this path costs the query and the pool checkout.
    On SQLite only: the driver is in process, so there is no lost connection for Core to handle;
    other databases go through Core. The session row is still read every time (nothing cached)."""

    def __init__(self, dialect: Dialect) -> None:
        compiled = _PEEK_STATEMENT.compile(dialect=dialect)
        if not compiled.positional:  # pysqlite is qmark; keep Core's path honest if that ever changes
            raise ValueError(f"positional parameters expected, got {dialect.paramstyle}")
        params = compiled.construct_params({"token_hash": ""})
        self.sql = compiled.string
        names = compiled.positiontup or []  # set: the statement is positional (checked above)
        self.params = [params[name] for name in names]
        self.token_at = names.index("token_hash")
        self.processors = [column.type.dialect_impl(dialect).result_processor(dialect, None)
                           for column in _PEEK_STATEMENT.selected_columns]

    def run(self, engine: Engine, token_hash: str) -> tuple | None:
        params = list(self.params)
        params[self.token_at] = token_hash
        connection = engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                cursor.execute(self.sql, params)
                rows = cursor.fetchall()  # token_hash is unique; fetching to the end ends the read at once
            finally:
                cursor.close()
        finally:
            connection.close()  # back to the pool, as Core would
        if not rows:
            return None
        return tuple(value if convert is None or value is None else convert(value)
                     for convert, value in zip(self.processors, rows[0], strict=True))


@functools.lru_cache(maxsize=8)
def _sqlite_peek(dialect: Dialect) -> _SqlitePeek:
    return _SqlitePeek(dialect)


def _fingerprint(user, aggregates: tuple) -> tuple:
    # the user's own columns that progress depends on: a reset bumps the epoch, days follow tz
    return (user.id, user.progress_epoch, user.tz, *aggregates)


@dataclass
class ReaderRow:
    session: AuthSession
    user: User
    fingerprint: tuple  # compare only for equality; built from the user's rows and user columns

    @property
    def unannounced(self) -> int:
        return self.fingerprint[-1]

    @property
    def expires_at(self) -> Any:
        return self.session.expires_at


def load_reader(db: Session, token_hash: str) -> ReaderRow | None:
    """The session with this token hash (expired or not: accounts.auth.live_session judges), its user
    and the user's progress fingerprint. One SELECT."""
    row = db.execute(_READER_STATEMENT, {"token_hash": token_hash}).first()
    if row is None:
        return None
    session, user, *aggregates = row
    return ReaderRow(session, user, _fingerprint(user, tuple(aggregates)))


class ReaderMemo:
    """Per process: the learner state last computed for a user and fingerprint, and the
    'lesson opened' events known to be stored already (so repeated views write nothing).

    Only states computed by a view that wrote nothing are remembered (see page_state), so
    serving one again is exactly what recomputing it would give. One per application (one of the
    services create_app builds), so each test app starts empty.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: dict[int, tuple[Any, LearnerState]] = {}
        self._opened: set[tuple] = set()

    def state(self, user_id: int, key: tuple) -> LearnerState | None:
        hit = self._states.get(user_id)
        return hit[1] if hit is not None and hit[0] == key else None

    def remember_state(self, user_id: int, key: tuple, state: LearnerState) -> None:
        with self._lock:
            if len(self._states) >= MAX_MEMO_USERS:
                self._states.clear()
            self._states[user_id] = (key, state)

    def opened(self, key: tuple) -> bool:
        return key in self._opened

    def remember_opened(self, key: tuple) -> None:
        # forgetting is always safe: the database's unique constraint still stores it once
        with self._lock:
            if len(self._opened) >= MAX_OPENED:
                self._opened.clear()
            self._opened.add(key)
