"""A submission's review trail as its readers see it: the graders' entries in order, and the
verdict that counts (a grader's latest override wins over the engine's). The learner's panel and
profile, the graders' pages and the notifications read verdicts through here; the graders' actions
that write the trail are app.graders.reviews."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.submissions.models import Submission, SubmissionReview


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
