"""Progress tables: one event log, the XP ledger, and earned achievements.

Rows are appended, never rewritten: "reset my progress" bumps ``user.progress_epoch`` and
flags the old ledger entries ``voided``; everything of an older epoch stays for audit but no
longer counts. Deleting the account removes all of it (personal data).
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utcnow
from app.core.db import Base


class Event(Base):
    __tablename__ = "event"
    __table_args__ = (
        # dedupe is NULL for events that may repeat; otherwise it names the deed once per epoch
        UniqueConstraint("user_id", "epoch", "kind", "dedupe", name="uq_event_dedupe"),
        Index("ix_event_user_epoch", "user_id", "epoch"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    epoch: Mapped[int] = mapped_column(Integer, default=0)
    kind: Mapped[str] = mapped_column(String(32))
    subject: Mapped[str] = mapped_column(String(100), default="")  # lesson slug, exercise id, comment id
    lang: Mapped[str | None] = mapped_column(String(5), nullable=True)
    value: Mapped[float | None] = mapped_column(Float, nullable=True)  # e.g. a speedup's lower CI bound
    data: Mapped[str] = mapped_column(Text, default="{}")  # JSON
    source: Mapped[str] = mapped_column(String(16), default="server")  # server | browser | grader
    dedupe: Mapped[str | None] = mapped_column(String(200), nullable=True)
    occurred_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)  # when it happened (UTC)
    recorded_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class XpEntry(Base):
    __tablename__ = "xp_entry"
    __table_args__ = (
        # the same deed pays once per epoch, whatever the number of clicks or concurrent requests
        UniqueConstraint("user_id", "epoch", "source", "source_id", name="uq_xp_entry_deed"),
        # ...and is live at most once across epochs: a completion racing a progress reset cannot leave
        # the same lesson paid in the old epoch and the new one (the total can never pass the course's).
        Index("uq_xp_entry_live_deed", "user_id", "source", "source_id", unique=True,
              sqlite_where=text("voided = 0"), postgresql_where=text("NOT voided")),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    epoch: Mapped[int] = mapped_column(Integer, default=0)
    source: Mapped[str] = mapped_column(String(32))  # lesson | exercise_pass | exercise_tier | adjustment
    source_id: Mapped[str] = mapped_column(String(200))
    amount: Mapped[int] = mapped_column(Integer)
    voided: Mapped[bool] = mapped_column(Boolean, default=False)
    note: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class UserAchievement(Base):
    __tablename__ = "user_achievement"
    __table_args__ = (UniqueConstraint("user_id", "epoch", "achievement_id", name="uq_user_achievement"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    epoch: Mapped[int] = mapped_column(Integer, default=0)
    achievement_id: Mapped[str] = mapped_column(String(32))
    earned_at: Mapped[dt.datetime] = mapped_column(DateTime)  # time of the event that satisfied the rule
    announced: Mapped[bool] = mapped_column(Boolean, default=False)
