"""Grader actions on one submission: a note, a verdict override, a re-run. Each is one audit
row; an override moves XP through the ledger's compensating entries (app.progress.ledger.adjust),
so the learner's total always equals the sum of an append-only ledger.

XP rule for an override, per exercise (so it does not matter which submission paid what):
the learner's XP for the exercise should be the pass XP if any of their submissions for it has the
effective verdict PASSED, plus each speed tier met by such a submission whose engine Result says it
was met (an overridden wrong answer earns the pass, never tiers it did not measure). One
compensating entry brings the ledger's current XP for the exercise to that target.
"""
from __future__ import annotations

import json

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core.clock import utcnow
from app.graders.models import SubmissionReview
from app.panel import texts
from app.progress import ledger
from app.progress.models import XpEntry
from app.submissions import states
from app.submissions.models import Submission

MAX_REASON = 2000


class ReviewError(Exception):
    def __init__(self, status: int, code: str):
        super().__init__(code)
        self.status, self.code = status, code


def reviews_for(db: Session, submission_ids: list[int]) -> dict[int, list[SubmissionReview]]:
    out: dict[int, list[SubmissionReview]] = {i: [] for i in submission_ids}
    if submission_ids:
        for r in db.scalars(select(SubmissionReview).where(SubmissionReview.submission_id.in_(submission_ids))
                            .order_by(SubmissionReview.created_at, SubmissionReview.id)):
            out[r.submission_id].append(r)
    return out


def effective_verdict(row: Submission, reviews: list[SubmissionReview]) -> str | None:
    """The latest override wins over the engine's verdict."""
    for r in reversed(reviews):
        if r.kind == "override":
            return r.verdict_after
    return row.verdict


def _key(sub_id: int) -> str:
    return f"submission:{sub_id}"


def _override_entries(db: Session, user: User, sub_ids: set[int]):
    """The live override adjustments of these submissions (their ids are in the reference)."""
    for source_id, amount in db.execute(select(XpEntry.source_id, XpEntry.amount).where(
            XpEntry.user_id == user.id, XpEntry.epoch == user.progress_epoch, XpEntry.voided.is_(False),
            XpEntry.source == "adjustment", XpEntry.source_id.like("submission:%:override:%"))):
        sub = source_id.split(":")[1]
        if sub.isdigit() and int(sub) in sub_ids:
            yield amount


def exercise_xp_now(db: Session, user: User, exercise_id: str, sub_ids: set[int]) -> int:
    """What the ledger pays this learner for this exercise now: pass, tiers and override entries."""
    live = (XpEntry.user_id == user.id, XpEntry.epoch == user.progress_epoch, XpEntry.voided.is_(False))
    paid = db.scalar(select(func.coalesce(func.sum(XpEntry.amount), 0)).where(
        *live, ((XpEntry.source == "exercise_pass") & (XpEntry.source_id == exercise_id))
        | ((XpEntry.source == "exercise_tier") & XpEntry.source_id.like(exercise_id + ":%")))) or 0
    return int(paid) + sum(_override_entries(db, user, sub_ids))


def exercise_xp_target(db: Session, user: User, exercise_id: str, rows: list[Submission]) -> int:
    """What it should pay, judged on the effective verdicts (see the module's docstring)."""
    from kernels.engine import load_exercise

    trail = reviews_for(db, [r.id for r in rows])
    passed = [r for r in rows if r.state == states.DONE and effective_verdict(r, trail[r.id]) == "PASSED"]
    if not passed:
        return 0
    try:
        spec = load_exercise(exercise_id)
    except Exception:
        return 0
    tier_xp = {t.id: t.xp for t in spec.tiers}
    met: set[str] = set()
    for r in passed:
        result = result_of(r) or {}
        if result.get("verdict") == "PASSED":
            met |= {t.get("id") for t in result.get("tiers") or [] if t.get("met") and t.get("id") in tier_xp}
    return int(spec.pass_xp) + sum(tier_xp[t] for t in met)


def _clean_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ReviewError(422, "reason_required")
    if len(reason) > MAX_REASON:
        raise ReviewError(422, "reason_too_long")
    return reason


def _load(db: Session, sub_id: int) -> Submission:
    row = db.get(Submission, sub_id)
    if row is None:
        raise ReviewError(404, "not_found")
    return row


def add_note(db: Session, grader: User, sub_id: int, reason: str) -> SubmissionReview:
    row = _load(db, sub_id)
    entry = SubmissionReview(submission_id=row.id, grader_id=grader.id, grader_name=grader.username, kind="note",
                             verdict_before=effective_verdict(row, reviews_for(db, [row.id])[row.id]),
                             reason=_clean_reason(reason), xp_delta=0, created_at=utcnow())
    db.add(entry)
    db.flush()
    return entry


def override(db: Session, grader: User, sub_id: int, verdict: str, reason: str) -> SubmissionReview:
    """Set the verdict the learner sees; pay or take back XP with one compensating entry."""
    reason = _clean_reason(reason)
    if verdict not in texts.OVERRIDE_VERDICTS:
        raise ReviewError(422, "bad_verdict")
    row = _load(db, sub_id)
    if row.user_id == grader.id:  # it would pay the grader XP: a second person decides (issue 15, item 9)
        raise ReviewError(403, "own_submission")
    if row.state != states.DONE:
        raise ReviewError(409, "not_graded")
    learner = db.get(User, row.user_id)
    before = effective_verdict(row, reviews_for(db, [row.id])[row.id])
    entry = SubmissionReview(submission_id=row.id, grader_id=grader.id, grader_name=grader.username,
                             kind="override", verdict_before=before, verdict_after=verdict, reason=reason,
                             xp_delta=0, created_at=utcnow())
    db.add(entry)
    db.flush()  # the entry's id names the compensating ledger row
    rows = list(db.scalars(select(Submission).where(Submission.user_id == learner.id,
                                                    Submission.exercise_id == row.exercise_id)))
    delta = exercise_xp_target(db, learner, row.exercise_id, rows) - exercise_xp_now(
        db, learner, row.exercise_id, {r.id for r in rows})
    if delta:
        delta = max(delta, -ledger.total_xp(db, learner))  # never below zero in total
        if delta:
            ledger.adjust(db, learner, delta, f"override {before}->{verdict}: {reason}"[:200],
                          f"{_key(row.id)}:override:{entry.id}")
    entry.xp_delta = delta
    db.flush()
    return entry


def rerun(db: Session, grader: User, sub_id: int, reason: str) -> SubmissionReview:
    """Queue a graded (or awaiting) submission again; the Result it replaces stays in the entry.

    Paying XP again is safe: the progress service pays a submission's deeds once
    (``record_grading_result`` is idempotent per submission id)."""
    row = _load(db, sub_id)
    if row.state not in (states.DONE, states.AWAITING_GPU):
        raise ReviewError(409, "already_queued")
    reason = (reason or "").strip()[:MAX_REASON] or "re-run"
    entry = SubmissionReview(submission_id=row.id, grader_id=grader.id, grader_name=grader.username, kind="rerun",
                             verdict_before=effective_verdict(row, reviews_for(db, [row.id])[row.id]),
                             reason=reason, xp_delta=0, result_before=row.result, created_at=utcnow())
    db.add(entry)
    now = utcnow()
    # compare-and-set: only if it is still finished (a dispatcher may not hold it)
    changed = db.execute(update(Submission).where(Submission.id == row.id,
                                                  Submission.state.in_((states.DONE, states.AWAITING_GPU)))
                         .values(state=states.QUEUED, verdict=None, result=None, lease_owner=None,
                                 lease_expires_at=None, lane=None, started_at=None, finished_at=None,
                                 attempts=0, recorded=False, updated_at=now)).rowcount
    if changed != 1:
        raise ReviewError(409, "already_queued")
    db.flush()
    return entry


def review_json(r: SubmissionReview) -> dict:
    return {"id": r.id, "kind": r.kind, "grader": r.grader_name, "verdict_before": r.verdict_before,
            "verdict_after": r.verdict_after, "reason": r.reason, "xp_delta": r.xp_delta,
            "created_at": r.created_at.isoformat() + "Z" if r.created_at else None}


def result_of(row: Submission) -> dict | None:
    return json.loads(row.result) if row.result else None


def rebalance_after_grading(db: Session, user_id: int, exercise_id: str, sub_id: int) -> int:
    """Called once a new Result is recorded. Only when a grader has overridden one of this learner's
    submissions for the exercise: bring its XP back to what the effective verdicts are worth (a
    genuine pass after a revoked one pays again, since the ledger pays the pass deed only once).
    Returns the compensating amount (0 almost always)."""
    rows = list(db.scalars(select(Submission).where(Submission.user_id == user_id,
                                                    Submission.exercise_id == exercise_id)))
    ids = {r.id for r in rows}
    overridden = db.scalar(select(SubmissionReview.id).where(SubmissionReview.submission_id.in_(ids),
                                                             SubmissionReview.kind == "override").limit(1))
    if overridden is None:
        return 0
    learner = db.get(User, user_id)
    delta = exercise_xp_target(db, learner, exercise_id, rows) - exercise_xp_now(db, learner, exercise_id, ids)
    delta = max(delta, -ledger.total_xp(db, learner))
    if delta and ledger.adjust(db, learner, delta, "rebalanced after a new grading (earlier grader override)",
                               f"{_key(sub_id)}:override:regrade") is not None:
        return delta
    return 0
