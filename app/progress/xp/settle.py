"""Paying XP: every deed the event log is worth (the rule in rules.py), paid once through the
ledger (ledger.py). Amounts come from lesson.yaml and the exercises' spec.yaml, never from code.
Callers commit the session.
"""
from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.progress import events as ev
from app.progress import verdicts
from app.progress.xp import ledger
from app.progress.xp.rules import deeds, exercise_xp_from_specs


def settle_xp(session: Session, user: User, *, lesson_xp: dict[str, int] | None = None,
              kernels_dir: Path | None = None) -> int:
    """Pay every deed the current epoch's events are worth and that is not paid yet; returns XP paid."""
    paid = 0
    events = verdicts.effective(ev.current_events(session, user))
    for deed in deeds(events, lesson_xp or {}, exercise_xp_from_specs(kernels_dir)):
        entry = ledger.pay(session, user, deed.source, deed.source_id, deed.amount)
        paid += entry.amount if entry else 0
    return paid
