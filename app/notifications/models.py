"""Notification rows (one per recipient and comment, per recipient and grader's verdict change, or per
recipient and leaderboard strike: the unique keys make "exactly once" hold under retries and races) and
each user's preference."""
from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.classes import models as _class_models  # noqa: F401  (board_strike, which a notification may name)
from app.core.clock import utcnow
from app.core.db import Base


class Notification(Base):
    __tablename__ = "notification"
    __table_args__ = (
        UniqueConstraint("user_id", "comment_id", name="uq_notification_user_comment"),
        UniqueConstraint("user_id", "review_id", name="uq_notification_user_review"),
        UniqueConstraint("user_id", "strike_id", name="uq_notification_user_strike"),
        Index("ix_notification_user_read", "user_id", "read_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    # a comment's notification names the comment; a verdict change names the grader's audit entry
    comment_id: Mapped[int | None] = mapped_column(ForeignKey("comment.id", ondelete="CASCADE"), nullable=True)
    review_id: Mapped[int | None] = mapped_column(ForeignKey("submission_review.id", ondelete="CASCADE"),
                                                  nullable=True)
    # a grader struck the learner's leaderboard entry (app/classes/boards.py)
    strike_id: Mapped[int | None] = mapped_column(ForeignKey("board_strike.id", ondelete="CASCADE"), nullable=True)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"), nullable=True)
    # "reply" (to your comment) | "thread" (a thread you follow) | "verdict" (a grader changed your verdict)
    # | "strike" (a grader struck your leaderboard entry)
    kind: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    read_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class NotificationPreference(Base):
    __tablename__ = "notification_preference"

    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), primary_key=True)
    mode: Mapped[str] = mapped_column(String(16), default="reply")  # "reply" | "off"
