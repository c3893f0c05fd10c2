"""The one event log. Everything a learner does lands here; XP and achievements are rules over it."""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core.clock import utcnow
from app.progress.models import Event
from app.progress.once import insert_once

LESSON_OPENED = "lesson_opened"
LESSON_COMPLETED = "lesson_completed"
LANGUAGE_READ = "language_read"  # a lesson read (completed) in one language
EXERCISE_ATTEMPTED = "exercise_attempted"
EXERCISE_PASSED = "exercise_passed"
# compiled, waiting for a GPU: "It compiles" is the compiler's word, earned before the GPU's verdict
EXERCISE_COMPILED = "exercise_compiled"
SPEEDUP_REACHED = "speedup_reached"
COMMENT_POSTED = "comment_posted"
REPLY_MARKED_HELPFUL = "reply_marked_helpful"
# a grader set a submission's verdict (app/progress/verdicts.py says what that changes)
VERDICT_OVERRIDDEN = "verdict_overridden"
# the compensating event: an achievement taken back because its deed no longer stands
ACHIEVEMENT_REVOKED = "achievement_revoked"
_COLUMNS = ("user_id", "epoch", "kind", "subject", "lang", "value", "data", "source", "dedupe",
            "occurred_at", "recorded_at")
KINDS = (LESSON_OPENED, LESSON_COMPLETED, LANGUAGE_READ, EXERCISE_ATTEMPTED, EXERCISE_PASSED, EXERCISE_COMPILED,
         SPEEDUP_REACHED, COMMENT_POSTED, REPLY_MARKED_HELPFUL, VERDICT_OVERRIDDEN, ACHIEVEMENT_REVOKED)


@dataclass(frozen=True)
class EventView:
    """A plain, session-free event: what achievement rules read (and tests build by hand)."""

    kind: str
    occurred_at: dt.datetime  # naive UTC
    subject: str = ""
    lang: str | None = None
    value: float | None = None
    data: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    # when the server stored it (naive UTC); None for hand-built events, which count as seen when they occurred
    recorded_at: dt.datetime | None = None
    source: str = "server"  # "browser": a claim merged from a visitor's local progress, not seen by the server

    @property
    def seen_at(self) -> dt.datetime:
        """When the server saw it: a browser's claimed time (merged local progress) is not a server-seen day."""
        return self.recorded_at or self.occurred_at

    @classmethod
    def of(cls, row: Event) -> EventView:
        return cls(row.kind, row.occurred_at, row.subject, row.lang, row.value, json.loads(row.data or "{}"),
                   row.recorded_at, row.source)


def record_event(session: Session, user: User, kind: str, *, subject: str = "", lang: str | None = None,
                 value: float | None = None, data: dict[str, Any] | None = None, source: str = "server",
                 dedupe: str | None = None, occurred_at: dt.datetime | None = None) -> Event | None:
    """Append one event; with ``dedupe`` the same deed is stored once per epoch (None if it was already)."""
    if kind not in KINDS:
        raise ValueError(f"unknown event kind {kind!r}")
    row = Event(user_id=user.id, epoch=user.progress_epoch, kind=kind, subject=subject, lang=lang, value=value,
                data=json.dumps(data or {}, ensure_ascii=False), source=source, dedupe=dedupe,
                occurred_at=occurred_at or utcnow(), recorded_at=utcnow())
    if dedupe is None:
        session.add(row)
        session.flush()
        return row
    # a concurrent twin may race us: the unique constraint decides, in one statement
    new_id = insert_once(session, Event, **{c: getattr(row, c) for c in _COLUMNS})
    return session.get(Event, new_id) if new_id is not None else None


def current_events(session: Session, user: User) -> list[EventView]:
    rows = session.scalars(select(Event).where(Event.user_id == user.id, Event.epoch == user.progress_epoch)
                           .order_by(Event.occurred_at, Event.id))
    return [EventView.of(r) for r in rows]
