"""Paying XP: every deed the event log is worth (the rule in app/progress/xp_rules.py), paid once
through the ledger (app/progress/ledger.py). Amounts come from lesson.yaml and the exercises'
spec.yaml, never from code. Callers commit the session.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.lessons.catalog import Lesson
from app.progress import events as ev
from app.progress import ledger, verdicts
from app.progress.achievements import award_achievements
from app.progress.xp_rules import deeds


def exercise_xp_from_specs(kernels_dir=None):
    """exercise id -> (pass XP, {tier id: XP}) from kernels/<id>/spec.yaml (engine loader)."""
    from kernels.engine import load_exercise
    from kernels.engine.exercise import ExerciseSpecError, UnknownExercise

    def lookup(exercise_id: str):
        try:
            spec = load_exercise(exercise_id, kernels_dir) if kernels_dir else load_exercise(exercise_id)
        except (UnknownExercise, ExerciseSpecError, OSError):
            return None
        return spec.pass_xp, {t.id: t.xp for t in spec.tiers}
    return lookup


def settle_xp(session: Session, user: User, *, lesson_xp: dict[str, int] | None = None, kernels_dir=None) -> int:
    """Pay every deed the current epoch's events are worth and that is not paid yet; returns XP paid."""
    paid = 0
    events = verdicts.effective(ev.current_events(session, user))
    for deed in deeds(events, lesson_xp or {}, exercise_xp_from_specs(kernels_dir)):
        entry = ledger.pay(session, user, deed.source, deed.source_id, deed.amount)
        paid += entry.amount if entry else 0
    return paid


def replay_history(session: Session, user: User, lessons: list[Lesson], kernels_dir=None) -> dict[str, Any]:
    """Re-run every XP and achievement rule over the learner's history (e.g. after a new rule or
    a content change that adds XP). Idempotent: what was paid or earned stays, nothing twice."""
    paid = settle_xp(session, user, lesson_xp={lesson.slug: lesson.meta.xp for lesson in lessons}, kernels_dir=kernels_dir)
    return {"xp_paid": paid, "achievements": award_achievements(session, user, frozenset(lesson.slug for lesson in lessons))}
