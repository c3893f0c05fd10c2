"""Comment tables: one thread per lesson (both languages share it), comments, follows, reports.

A comment is never removed from the table by its author: "delete" clears the text and keeps the
row, so replies below it keep their place in the tree. Moderators hide instead of deleting, so a
hide can be undone. ``depth`` and ``root_id`` are stored so a page of threads is one query.
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utcnow
from app.core.db import Base


class CommentThread(Base):
    __tablename__ = "comment_thread"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    lesson_slug: Mapped[str] = mapped_column(String(100), unique=True)
    locked_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    locked_by: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Comment(Base):
    __tablename__ = "comment"
    __table_args__ = (
        Index("ix_comment_thread_parent", "thread_id", "parent_id"),
        Index("ix_comment_author_created", "author_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    thread_id: Mapped[int] = mapped_column(ForeignKey("comment_thread.id", ondelete="CASCADE"))
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("comment.id", ondelete="SET NULL"), nullable=True)
    root_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)  # NULL for a top-level comment
    depth: Mapped[int] = mapped_column(Integer, default=0)
    # a deleted account leaves its comments in place, shown as "deleted account"
    author_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"), nullable=True)
    lang: Mapped[str] = mapped_column(String(5))  # the language the author wrote from
    body: Mapped[str] = mapped_column(Text, default="")  # markdown source as typed
    body_html: Mapped[str] = mapped_column(Text, default="")  # rendered and sanitised at write time
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    edited_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    deleted_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    hidden_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    hidden_by: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"), nullable=True)
    helpful_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # marked by the parent's author


class CommentFollow(Base):
    __tablename__ = "comment_follow"
    __table_args__ = (UniqueConstraint("user_id", "thread_id", name="uq_comment_follow"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    thread_id: Mapped[int] = mapped_column(ForeignKey("comment_thread.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class CommentReport(Base):
    """A signed-in reader flags a comment; instructors see it in the reports inbox."""

    __tablename__ = "comment_report"
    __table_args__ = (UniqueConstraint("comment_id", "reporter_id", name="uq_comment_report"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    comment_id: Mapped[int] = mapped_column(ForeignKey("comment.id", ondelete="CASCADE"), index=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    resolved_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    resolved_by: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"), nullable=True)
