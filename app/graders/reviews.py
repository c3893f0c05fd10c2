"""Grader actions on one submission: a note, a verdict override, a re-run. Each is one audit row.

An override flows through progress like a grading does: it appends one
``verdict_overridden`` event to the learner's event log (app.progress.grading.record_verdict_override),
and XP, speed tiers and achievements are the same rules over the effective events
(app.progress.verdicts): what the new verdict earns is paid as the same deeds a grading pays,
achievements that the override takes away are revoked with a compensating ``achievement_revoked``
event (and earned again if a later override restores them), and the learner gets a notification
in the bell. The learner's panel shows the effective verdict, its tiers and its XP
(app.panel.submission.present_submission).

XP rule per exercise (so it does not matter which submission paid what): the learner's XP for the
exercise is the pass XP if any of their submissions for it has the effective verdict PASSED, plus
each speed tier met by such a submission whose engine Result says it was met (an overridden wrong
answer earns the pass, never tiers it did not measure). One compensating ledger entry brings what
the ledger pays for the exercise to that target, so the total always equals the sum of an
append-only ledger (app.progress.xp; a new grading after an override re-balances the same
way: app.submissions.reviews.rebalance_after_grading).

Concurrency: an override first takes the learner's row lock (an UPDATE of the user row: a row
lock on PostgreSQL, the write lock on SQLite), so overrides of one learner's submissions run one
after another, each reading what the previous one committed. A repeated override (double click,
two graders at once) that asks for the verdict the submission already has from an override adds
nothing: no second audit row, ledger entry, event or notification.
"""
from __future__ import annotations

import json
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core import vocabulary
from app.core.clock import utcnow
from app.core.db import rows_changed
from app.graders.messages import ReviewError as ReviewError  # re-exported: the routes raise it too
from app.progress import xp
from app.progress.grading import record_verdict_override
from app.progress.xp import compensate, lock_learner, override_reference
from app.submissions import states
from app.submissions.models import Submission, SubmissionReview
from app.submissions.reviews import effective_verdict, exercise_submission_ids, reviews_for

MAX_REASON = 2000


def _clean_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ReviewError("reason_required", status=422)
    if len(reason) > MAX_REASON:
        raise ReviewError("reason_too_long", status=422)
    return reason


def _load(db: Session, sub_id: int) -> Submission:
    row = db.get(Submission, sub_id)
    if row is None:
        raise ReviewError("not_found", status=404)
    return row


def add_note(db: Session, grader: User, sub_id: int, reason: str) -> SubmissionReview:
    row = _load(db, sub_id)
    entry = SubmissionReview(submission_id=row.id, grader_id=grader.id, grader_name=grader.username, kind="note",
                             verdict_before=effective_verdict(row, reviews_for(db, [row.id])[row.id]),
                             reason=_clean_reason(reason), xp_delta=0, created_at=utcnow())
    db.add(entry)
    db.flush()
    return entry


def override(db: Session, grader: User, sub_id: int, verdict: str, reason: str,
             lesson_slugs: frozenset[str] = frozenset()) -> SubmissionReview:
    """Set the verdict the learner sees (see the module's docstring); returns the audit entry."""
    return override_once(db, grader, sub_id, verdict, reason, lesson_slugs)[0]


def override_once(db: Session, grader: User, sub_id: int, verdict: str, reason: str,
                  lesson_slugs: frozenset[str] = frozenset()) -> tuple[SubmissionReview, bool]:
    """(audit entry, created). ``created`` is False when an override had already set this verdict:
    the earlier entry is returned and nothing else happens."""
    from app.notifications.service import verdict_changed

    reason = _clean_reason(reason)
    if verdict not in vocabulary.OVERRIDE_VERDICTS:
        raise ReviewError("bad_verdict", status=422)
    row = _load(db, sub_id)
    if row.user_id == grader.id:  # it would pay the grader XP: a second person decides
        raise ReviewError("own_submission", status=403)
    if row.state != states.DONE:
        raise ReviewError("not_graded", status=409)
    learner = lock_learner(db, row.user_id)
    if learner is None:  # the learner's account went while the submission row stayed
        raise ReviewError("not_found", status=404)
    trail = reviews_for(db, [row.id])[row.id]
    before = effective_verdict(row, trail)
    if before == verdict:
        latest = next((r for r in reversed(trail) if r.kind == "override"), None)
        if latest is not None:
            return latest, False
        raise ReviewError("same_verdict", status=409)
    total_before = xp.total_xp(db, learner)
    entry = SubmissionReview(submission_id=row.id, grader_id=grader.id, grader_name=grader.username,
                             kind="override", verdict_before=before, verdict_after=verdict, reason=reason,
                             xp_delta=0, created_at=utcnow())
    db.add(entry)
    db.flush()  # the entry's id names the event, the compensating ledger row and the notification
    record_verdict_override(db, learner, row.exercise_id, row.id, review_id=entry.id, before=before,
                                    after=verdict, at=entry.created_at, lesson_slugs=lesson_slugs)
    compensate(db, learner, row.exercise_id, exercise_submission_ids(db, learner.id, row.exercise_id),
               f"override {before}->{verdict}: {reason}", override_reference(row.id, entry.id))
    entry.xp_delta = xp.total_xp(db, learner) - total_before
    verdict_changed(db, entry, learner.id)
    db.flush()
    return entry, True


def rerun(db: Session, grader: User, sub_id: int, reason: str) -> SubmissionReview:
    """Queue a graded (or awaiting) submission again; the Result it replaces stays in the entry.

    Paying XP again is safe: progress pays a submission's deeds once
    (``record_grading_result`` is idempotent per submission id)."""
    row = _load(db, sub_id)
    if row.state not in (states.DONE, states.AWAITING_GPU):
        raise ReviewError("already_queued", status=409)
    reason = (reason or "").strip()[:MAX_REASON] or "re-run"
    entry = SubmissionReview(submission_id=row.id, grader_id=grader.id, grader_name=grader.username, kind="rerun",
                             verdict_before=effective_verdict(row, reviews_for(db, [row.id])[row.id]),
                             reason=reason, xp_delta=0, result_before=row.result, created_at=utcnow())
    db.add(entry)
    now = utcnow()
    # compare-and-set: only if it is still finished (a dispatcher may not hold it)
    changed = rows_changed(db, update(Submission).where(Submission.id == row.id,
                                                        Submission.state.in_((states.DONE, states.AWAITING_GPU)))
                           .values(state=states.QUEUED, verdict=None, result=None, lease_owner=None,
                                   lease_expires_at=None, lane=None, started_at=None, finished_at=None,
                                   attempts=0, recorded=False, updated_at=now,
                                   compile_ms=None, long_compile_ms=None))  # compiled again, from a first slice
    if changed != 1:
        raise ReviewError("already_queued", status=409)
    db.flush()
    return entry


def review_json(r: SubmissionReview) -> dict[str, Any]:
    return {"id": r.id, "kind": r.kind, "grader": r.grader_name, "verdict_before": r.verdict_before,
            "verdict_after": r.verdict_after, "reason": r.reason, "xp_delta": r.xp_delta,
            "created_at": r.created_at.isoformat() + "Z" if r.created_at else None}


def result_of(row: Submission) -> dict[str, Any] | None:
    result: dict[str, Any] | None = json.loads(row.result) if row.result else None
    return result
