"""Who hears about a new comment, and reading the bell.

A new comment notifies the author of the comment it answers ("reply") and everyone following
the lesson's thread ("thread"), never the writer, never someone whose setting is "off". The
unique (user, comment) key means a recipient gets one notification per comment, however many
reasons apply and however often the code runs.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core.clock import utcnow
from app.notifications.models import Notification, NotificationPreference
from app.progress.once import insert_once

MODES = ("reply", "off")


def mode_for(db: Session, user_id: int) -> str:
    return db.scalar(select(NotificationPreference.mode).where(NotificationPreference.user_id == user_id)) or "reply"


def set_mode(db: Session, user: User, mode: str) -> str:
    if mode not in MODES:
        mode = "reply"
    row = db.get(NotificationPreference, user.id)
    if row is None:
        db.add(NotificationPreference(user_id=user.id, mode=mode))
    else:
        row.mode = mode
    return mode


def comment_posted(db: Session, comment, parent) -> int:
    """Create the notifications a new comment causes; returns how many were created."""
    from app.comments.models import CommentFollow  # late: comments imports this module

    recipients: dict[int, str] = {}
    if parent is not None and parent.author_id is not None:
        recipients[parent.author_id] = "reply"
    for user_id in db.scalars(select(CommentFollow.user_id).where(CommentFollow.thread_id == comment.thread_id)):
        recipients.setdefault(user_id, "thread")
    recipients.pop(comment.author_id, None)  # never for one's own action
    if not recipients:
        return 0
    off = set(db.scalars(select(NotificationPreference.user_id).where(
        NotificationPreference.user_id.in_(list(recipients)), NotificationPreference.mode == "off")))
    created = 0
    for user_id, kind in recipients.items():
        if user_id in off:
            continue
        if insert_once(db, Notification, user_id=user_id, comment_id=comment.id, actor_id=comment.author_id,
                       kind=kind, created_at=utcnow()) is not None:
            created += 1
    return created


def _visible(query):
    """Only notifications whose comment can still be read (not hidden, not deleted)."""
    from app.comments.models import Comment

    return query.join(Comment, Comment.id == Notification.comment_id).where(
        Comment.hidden_at.is_(None), Comment.deleted_at.is_(None))


def unread_count(db: Session, user: User) -> int:
    return db.scalar(_visible(select(func.count()).select_from(Notification))
                     .where(Notification.user_id == user.id, Notification.read_at.is_(None))) or 0


@dataclass
class NotificationView:
    id: int
    kind: str
    actor: str | None
    lesson_slug: str
    comment_id: int
    lang: str
    created_at: object
    read: bool


def recent(db: Session, user: User, limit: int = 50) -> list[NotificationView]:
    from app.comments.models import Comment, CommentThread

    rows = db.execute(_visible(select(Notification, Comment.lang, CommentThread.lesson_slug, User.username))
                      .join(CommentThread, CommentThread.id == Comment.thread_id)
                      .outerjoin(User, User.id == Notification.actor_id)
                      .where(Notification.user_id == user.id)
                      .order_by(Notification.created_at.desc(), Notification.id.desc()).limit(limit))
    return [NotificationView(n.id, n.kind, actor, slug, n.comment_id, lang, n.created_at, n.read_at is not None)
            for n, lang, slug, actor in rows]


def mark_read(db: Session, user: User, notification_id: int) -> bool:
    return bool(db.execute(update(Notification).where(Notification.id == notification_id,
                                                      Notification.user_id == user.id,
                                                      Notification.read_at.is_(None))
                           .values(read_at=utcnow())).rowcount)


def mark_all_read(db: Session, user: User) -> int:
    return db.execute(update(Notification).where(Notification.user_id == user.id, Notification.read_at.is_(None))
                      .values(read_at=utcnow())).rowcount or 0
