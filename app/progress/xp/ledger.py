"""The XP ledger: append-only rows (user, source, source_id, amount); a total is a sum.

The UNIQUE constraint (user, epoch, source, source_id) is what makes a deed pay once: two
concurrent requests both try to insert, the database keeps one. Rows are never edited or
deleted; a correction is a compensating ``adjustment`` row, and a reset flips ``voided``.
"""
from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core.clock import utcnow
from app.core.db import rows_changed
from app.progress.models import XpEntry
from app.progress.once import insert_once

SOURCES = ("lesson", "exercise_pass", "exercise_tier", "adjustment")


def pay(session: Session, user: User, source: str, source_id: str, amount: int, note: str = "") -> XpEntry | None:
    """Pay ``amount`` for one deed; returns None when that deed was already paid in this epoch."""
    if source not in SOURCES:
        raise ValueError(f"unknown XP source {source!r}")
    if amount <= 0 and source != "adjustment":
        return None
    new_id = insert_once(session, XpEntry, user_id=user.id, epoch=user.progress_epoch, source=source,
                         source_id=source_id[:200], amount=int(amount), voided=False, note=note[:200],
                         created_at=utcnow())
    return session.get(XpEntry, new_id) if new_id is not None else None


def adjust(session: Session, user: User, amount: int, reason: str, reference: str) -> XpEntry | None:
    """A grader's override: a compensating entry (positive or negative), never an edit.

    ``reference`` names the correction (e.g. "submission:42:override:1") so a repeated click
    does not apply it twice.
    """
    if total_xp(session, user) + amount < 0:
        raise ValueError("an adjustment cannot take the total below zero")
    return pay(session, user, "adjustment", reference, amount, note=reason)


def total_xp(session: Session, user: User) -> int:
    return int(session.scalar(select(func.coalesce(func.sum(XpEntry.amount), 0))
                              .where(XpEntry.user_id == user.id, XpEntry.voided.is_(False))) or 0)


def history(session: Session, user: User, limit: int = 100) -> list[XpEntry]:
    return list(session.scalars(select(XpEntry).where(XpEntry.user_id == user.id)
                                .order_by(XpEntry.created_at.desc(), XpEntry.id.desc()).limit(limit)))


def void_all(session: Session, user: User) -> int:
    """Reset: every live entry stops counting but stays on record."""
    return rows_changed(session, update(XpEntry).where(XpEntry.user_id == user.id, XpEntry.voided.is_(False))
                        .values(voided=True))
