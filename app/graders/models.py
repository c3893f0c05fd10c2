"""The audit trail: every grader action on a submission is one row, never edited or deleted."""
from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utcnow
from app.core.db import Base


class SubmissionReview(Base):
    __tablename__ = "submission_review"
    __table_args__ = (Index("ix_submission_review_submission", "submission_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submission.id", ondelete="CASCADE"))
    # the grader; kept as NULL if their account is deleted (the entry itself stays)
    grader_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"), nullable=True)
    grader_name: Mapped[str] = mapped_column(String(32), default="")  # as it was when they acted
    kind: Mapped[str] = mapped_column(String(16))  # note | override | rerun
    verdict_before: Mapped[str | None] = mapped_column(String(16), nullable=True)  # effective, before
    verdict_after: Mapped[str | None] = mapped_column(String(16), nullable=True)  # override only
    reason: Mapped[str] = mapped_column(Text)
    xp_delta: Mapped[int] = mapped_column(Integer, default=0)  # the compensating ledger entry's amount
    result_before: Mapped[str | None] = mapped_column(Text, nullable=True)  # re-run: the Result it replaced
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
