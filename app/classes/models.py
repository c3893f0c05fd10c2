"""A class's tables: the class itself, its roster, its assignments, and the leaderboards' strikes and
each learner's choices about being shown.

Times are naive UTC like every other table (app/core/clock.py); the class's ``tz`` only says in which
zone its deadlines are stated and shown beside the reader's own.

``course_class.external_id`` is how a system outside the site (an LMS) names the class; unique, so one
context maps to one class. ``invite_code`` is NULL while the invite is closed; rotating it replaces it,
so an old link stops working at once.
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, CheckConstraint, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utcnow
from app.core.db import Base

# Roles inside one class (a site learner may be a class's grader or co-instructor).
MEMBER_ROLES = ("learner", "grader", "instructor")
LATE_POLICIES = ("mark", "close")  # accept and mark late | stop counting after the due time
ITEM_KINDS = ("lesson", "exercise")


class CourseClass(Base):
    __tablename__ = "course_class"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    term: Mapped[str] = mapped_column(String(64), default="")
    notice_lang: Mapped[str] = mapped_column(String(2), default="ko")  # the language of its notices
    tz: Mapped[str] = mapped_column(String(64), default="UTC")  # the zone its deadlines are stated in
    invite_code: Mapped[str | None] = mapped_column(String(32), unique=True, nullable=True)
    external_id: Mapped[str | None] = mapped_column(String(255), unique=True, nullable=True)
    # leaderboards: opt-in by the instructor; optionally hidden until an exercise's due time
    board_enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    board_hide_until_due: Mapped[bool] = mapped_column(Boolean, default=False)
    # part of the grading GPU's name the class's boards rank on (empty: any GPU)
    board_gpu: Mapped[str] = mapped_column(String(64), default="")
    created_by: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class ClassMember(Base):
    __tablename__ = "class_member"
    __table_args__ = (
        UniqueConstraint("class_id", "user_id", name="uq_class_member_class_user"),
        CheckConstraint("role IN ('learner', 'grader', 'instructor')", name="ck_class_member_role"),
        Index("ix_class_member_user", "user_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    class_id: Mapped[int] = mapped_column(ForeignKey("course_class.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(String(16), default="learner")
    source: Mapped[str] = mapped_column(String(16), default="invite")  # invite | csv | owner | manual | lti
    # accounts have no e-mail; the roster keeps the one the instructor's CSV (or an LMS) gave, for exports
    email: Mapped[str] = mapped_column(String(254), default="")
    joined_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Assignment(Base):
    __tablename__ = "assignment"
    __table_args__ = (
        CheckConstraint("late_policy IN ('mark', 'close')", name="ck_assignment_late_policy"),
        CheckConstraint("opens_at <= due_at", name="ck_assignment_opens_before_due"),
        Index("ix_assignment_class_due", "class_id", "due_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    class_id: Mapped[int] = mapped_column(ForeignKey("course_class.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(120))
    opens_at: Mapped[dt.datetime] = mapped_column(DateTime)  # UTC
    due_at: Mapped[dt.datetime] = mapped_column(DateTime)  # UTC
    # "passed", or the id of an exercise's speed tier (e.g. "beat_tiled") that counts as complete
    complete_tier: Mapped[str] = mapped_column(String(32), default="passed")
    late_policy: Mapped[str] = mapped_column(String(8), default="mark")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class AssignmentItem(Base):
    """A lesson to read or an exercise to pass, in the order the instructor listed them."""

    __tablename__ = "assignment_item"
    __table_args__ = (
        UniqueConstraint("assignment_id", "kind", "ref", name="uq_assignment_item"),
        CheckConstraint("kind IN ('lesson', 'exercise')", name="ck_assignment_item_kind"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignment.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    ref: Mapped[str] = mapped_column(String(64))  # lesson slug or exercise id
    position: Mapped[int] = mapped_column(Integer, default=0)


class BoardProfile(Base):
    """How one learner appears on leaderboards: their name or an alias, and whether they take part in
    the site-wide board (off unless they opt in)."""

    __tablename__ = "board_profile"

    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), primary_key=True)
    alias: Mapped[str] = mapped_column(String(32), default="")
    use_alias: Mapped[bool] = mapped_column(Boolean, default=False)
    site_board: Mapped[bool] = mapped_column(Boolean, default=False)


class BoardStrike(Base):
    """A grader struck a submission from every leaderboard (an exploit, a copy). Never edited or
    deleted: it is the audit entry, and the learner's notification names it."""

    __tablename__ = "board_strike"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submission.id", ondelete="CASCADE"), unique=True)
    class_id: Mapped[int | None] = mapped_column(ForeignKey("course_class.id", ondelete="SET NULL"), nullable=True)
    grader_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"), nullable=True)
    grader_name: Mapped[str] = mapped_column(String(32), default="")  # as it was when they acted
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
