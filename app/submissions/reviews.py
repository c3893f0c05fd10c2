"""A submission's review trail as its readers see it: the graders' entries in order, and the
verdict that counts (a grader's latest override wins over the engine's). The learner's panel and
profile, the graders' pages and the notifications read verdicts through here; the graders' actions
that write the trail are app.graders.reviews.

After a new grading, ``rebalance_after_grading`` lets XP follow the effective verdicts when a grader
overrode one of the learner's submissions for the exercise before (app.progress.xp)."""
from __future__ import annotations

from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.progress.xp import compensate, lock_learner, override_reference
from app.submissions.models import Submission, SubmissionReview


def reviews_for(db: Session, submission_ids: list[int]) -> dict[int, list[SubmissionReview]]:
    out: dict[int, list[SubmissionReview]] = {i: [] for i in submission_ids}
    if submission_ids:
        for r in db.scalars(select(SubmissionReview).where(SubmissionReview.submission_id.in_(submission_ids))
                            .order_by(SubmissionReview.created_at, SubmissionReview.id)):
            out[r.submission_id].append(r)
    return out


class HasVerdict(Protocol):
    """A submission as a full row or as a selected row that carries its verdict column."""
    @property
    def verdict(self) -> str | None: ...


def effective_verdict(row: HasVerdict, reviews: list[SubmissionReview]) -> str | None:
    """The latest override wins over the engine's verdict."""
    for r in reversed(reviews):
        if r.kind == "override":
            return r.verdict_after
    return row.verdict


def exercise_submission_ids(db: Session, user_id: int, exercise_id: str) -> set[int]:
    """Every submission of this learner for this exercise (their override entries count as paid)."""
    return set(db.scalars(select(Submission.id).where(Submission.user_id == user_id,
                                                      Submission.exercise_id == exercise_id)))


def rebalance_after_grading(db: Session, user_id: int, exercise_id: str, sub_id: int) -> int:
    """Called once a new Result is recorded. Only when a grader has overridden one of this learner's
    submissions for the exercise: bring its XP back to what the effective verdicts are worth (a
    genuine pass after a revoked one pays again, since the ledger pays the pass deed only once).
    Returns the compensating amount (0 almost always)."""
    overridden = db.scalar(select(SubmissionReview.id).join(Submission, Submission.id == SubmissionReview.submission_id)
                           .where(Submission.user_id == user_id, Submission.exercise_id == exercise_id,
                                  SubmissionReview.kind == "override").limit(1))
    if overridden is None:
        return 0
    learner = lock_learner(db, user_id)
    if learner is None:
        return 0
    return compensate(db, learner, exercise_id, exercise_submission_ids(db, user_id, exercise_id),
                      "rebalanced after a new grading (earlier grader override)", override_reference(sub_id, "regrade"))
