"""What a grading does to progress (called by the submission flow and the graders' overrides):
the attempt, pass and speed-up events, the XP the spec says they are worth, and the achievements;
and ``replay_history``, every XP and achievement rule run again over a learner's whole history.
Callers commit the session.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.lessons.catalog import Lesson
from app.progress import events as ev
from app.progress.achievements import award_achievements, settle_achievements
from app.progress.xp import settle_xp

if TYPE_CHECKING:
    from kernels.engine.result import Result

COMPILED_VERDICTS = {"WRONG_ANSWER", "RUNTIME_ERROR", "TIME_LIMIT", "TOO_SLOW", "PASSED"}


def record_grading_result(session: Session, user_id: int, exercise_id: str, submission_id: int | str,
                          result: Result, *, lesson_slugs: frozenset[str] = frozenset(),
                          kernels_dir: Path | None = None) -> dict[str, Any]:
    """Turn one grader Result (kernels/engine/result.py) into events, XP and achievements.

    XP amounts come from the exercise spec (kernels/<id>/spec.yaml through load_exercise), never
    from the Result or from code: the pass once per exercise, each tier once when the Result
    says it was met. Safe to call twice for the same submission (nothing pays or counts twice).
    Returns {"xp_paid": int, "achievements": [Achievement, ...]}. The caller commits.
    """
    user = session.get(User, user_id)
    if user is None:
        raise LookupError(f"no user {user_id}")
    verdict = getattr(result.verdict, "value", result.verdict)
    compiled = verdict in COMPILED_VERDICTS or (verdict == "UNAVAILABLE" and result.resources is not None)
    key = f"submission:{submission_id}"
    ev.record_event(session, user, ev.EXERCISE_ATTEMPTED, subject=exercise_id, source="grader", dedupe=key,
                    data={"submission": str(submission_id), "verdict": verdict, "compiled": compiled})
    paid = 0
    if verdict == "PASSED":
        # which tiers were met is the grader's word; what they are worth is the spec's
        ev.record_event(session, user, ev.EXERCISE_PASSED, subject=exercise_id, source="grader", dedupe=key,
                        data={"submission": str(submission_id), "tiers_met": [t.id for t in result.tiers if t.met]})
        for speedup in result.speedups:
            if speedup.against in ("naive", "tiled", "baseline"):
                ev.record_event(session, user, ev.SPEEDUP_REACHED, subject=exercise_id, source="grader",
                                value=float(speedup.ci_low), dedupe=f"{key}:{speedup.against}",
                                data={"against": speedup.against, "value": speedup.value,
                                      "ci_low": speedup.ci_low, "submission": str(submission_id)})
        paid = settle_xp(session, user, kernels_dir=kernels_dir)
    new = award_achievements(session, user, lesson_slugs)
    return {"xp_paid": paid, "achievements": new}


def record_compiled(session: Session, user_id: int, exercise_id: str, submission_id: int | str, *,
                    lesson_slugs: frozenset[str] = frozenset()) -> list[Any]:
    """A kernel that compiled and now waits for a GPU: "It compiles" is earned now, not when a GPU
    frees up (maybe tomorrow). Its own event kind, so the grading's ``exercise_attempted`` still comes
    once, later. Safe to call twice. Returns the new achievements; the caller commits."""
    user = session.get(User, user_id)
    if user is None:
        return []
    ev.record_event(session, user, ev.EXERCISE_COMPILED, subject=exercise_id, source="grader",
                    dedupe=f"submission:{submission_id}", data={"submission": str(submission_id)})
    return award_achievements(session, user, lesson_slugs)


def record_verdict_override(session: Session, user: User, exercise_id: str, submission_id: int | str, *,
                            review_id: int, before: str | None, after: str, at: dt.datetime,
                            lesson_slugs: frozenset[str] = frozenset(),
                            kernels_dir: Path | None = None) -> dict[str, Any]:
    """A grader's override, through the same path as a grading: one event in the log, then the
    XP deeds and the achievement rules over the effective events (app.progress.verdicts).

    Pays what the new verdict newly earns (a grader's PASSED pays the exercise's pass deed once);
    what it takes away from the ledger is the caller's compensating entry (app.graders.reviews),
    since only that caller knows the exercise's earlier adjustments. Safe to call twice for one
    audit entry (its dedupe key). Returns {"xp_paid", "achievements", "revoked"}. The caller commits.
    """
    ev.record_event(session, user, ev.VERDICT_OVERRIDDEN, subject=exercise_id, source="grader",
                    dedupe=f"submission:{submission_id}:override:{review_id}", occurred_at=at,
                    data={"submission": str(submission_id), "verdict": after, "before": before,
                          "review": review_id})
    paid = settle_xp(session, user, kernels_dir=kernels_dir)
    new, revoked = settle_achievements(session, user, lesson_slugs)
    return {"xp_paid": paid, "achievements": new, "revoked": revoked}


def replay_history(session: Session, user: User, lessons: list[Lesson],
                   kernels_dir: Path | None = None) -> dict[str, Any]:
    """Re-run every XP and achievement rule over the learner's history (e.g. after a new rule or
    a content change that adds XP). Idempotent: what was paid or earned stays, nothing twice."""
    paid = settle_xp(session, user, lesson_xp={lesson.slug: lesson.meta.xp for lesson in lessons}, kernels_dir=kernels_dir)
    return {"xp_paid": paid, "achievements": award_achievements(session, user, frozenset(lesson.slug for lesson in lessons))}
