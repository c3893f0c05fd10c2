"""Notification rows (one per recipient and comment: the unique key makes "exactly once" hold
under retries and races) and each user's preference."""
from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utcnow
from app.models import Base


class Notification(Base):
    __tablename__ = "notification"
    __table_args__ = (
        UniqueConstraint("user_id", "comment_id", name="uq_notification_user_comment"),
        Index("ix_notification_user_read", "user_id", "read_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    comment_id: Mapped[int] = mapped_column(ForeignKey("comment.id", ondelete="CASCADE"))
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"), nullable=True)
    kind: Mapped[str] = mapped_column(String(16))  # "reply" (to your comment) | "thread" (a thread you follow)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    read_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class NotificationPreference(Base):
    __tablename__ = "notification_preference"

    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), primary_key=True)
    mode: Mapped[str] = mapped_column(String(16), default="reply")  # "reply" | "off"
