"""The queue's two tables, and the graders' audit trail of a submission.

``submission``: one learner's kernel and, once graded, the engine's Result JSON (as is).
The lease columns (``lease_owner``, ``lease_expires_at``, ``lane``) make the row a job that
exactly one dispatcher runs at a time; ``claimed_at`` drives the round-robin between users.

``dispatcher_lane``: one row per GPU (lane). A dispatcher only runs jobs while it holds its
lane's lease, so several server processes on one machine never time two jobs on one GPU.

``submission_review``: every grader action on a submission (note, override, re-run) is one row,
never edited or deleted. The graders write it (app.graders.reviews); what a learner sees of it
(the effective verdict, the notes) is read through app.submissions.reviews.
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utcnow
from app.core.db import Base


class Submission(Base):
    __tablename__ = "submission"
    __table_args__ = (
        Index("ix_submission_state_created", "state", "created_at"),
        Index("ix_submission_user_created", "user_id", "created_at"),
        Index("ix_submission_user_claimed", "user_id", "claimed_at"),
        Index("ix_submission_user_finished", "user_id", "finished_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(Text)
    launch: Mapped[str] = mapped_column(Text, default="null")  # the launch request as sent (JSON)
    source_bytes: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[str] = mapped_column(String(16), default="queued")
    verdict: Mapped[str | None] = mapped_column(String(16), nullable=True)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)  # engine Result JSON, unchanged
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    claimed_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # dequeued
    started_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # grade() called
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    lane: Mapped[str | None] = mapped_column(String(100), nullable=True)
    lease_owner: Mapped[str | None] = mapped_column(String(100), nullable=True)
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Cluster mode: milliseconds its compile stage took (the learner's hourly compile budget counts them).
    compile_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # A long compile: its first compile ran past the short CPU slice (MKC_COMPILE_SLICE_SECONDS) and spent
    # this many milliseconds (counted in the compile budget); its next compile gets the full limit. NULL: not.
    long_compile_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Milliseconds of GPU its checking and timing took (the learner's hourly GPU budget counts them).
    gpu_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Why a queued row waits longer than its turn, and until when (UTC): "compile_budget" (the learner's
    # hourly compile time is used up), "compile_cooldown" (their last compile timed out) or "compile_long"
    # (its compile needs more than the first slice and waits for a slot the others leave free); NULL: its turn.
    waiting_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    waiting_until: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    # record_grading_result ran for this row (the service is idempotent too; this saves work)
    recorded: Mapped[bool] = mapped_column(Boolean, default=False)


class DispatcherLane(Base):
    __tablename__ = "dispatcher_lane"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)  # e.g. "myhost:gpu0"
    owner: Mapped[str | None] = mapped_column(String(100), nullable=True)  # "host:pid:nonce"
    expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    heartbeat_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


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
