"""What people do with comments. Every function checks who may do it, changes rows, and leaves
the commit to the caller (a route). Refusals raise CommentsError with a message code."""
from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.comments.limits import CommentsConfig, take
from app.comments.markup import render_comment
from app.comments.messages import CommentsError
from app.comments.models import Comment, CommentFollow, CommentReport, CommentThread
from app.comments.permissions import can_moderate
from app.comments.text import is_blank, normalise
from app.core.clock import utcnow
from app.core.db import rows_changed
from app.progress.once import insert_once
from app.progress.social import record_comment_posted, record_reply_marked_helpful

# Called with (db, comment, parent) for every new comment, after it is stored and its author follows
# the thread. Who hears about it is the bell's business: app.notifications.service registers here
# when it is imported (the app's factory includes its routes), so comments import nothing above them.
COMMENT_POSTED: list[Callable[[Session, Comment, Comment | None], object]] = []


def thread_for(db: Session, slug: str, *, create: bool = False) -> CommentThread | None:
    thread = db.scalar(select(CommentThread).where(CommentThread.lesson_slug == slug))
    if thread is None and create:
        insert_once(db, CommentThread, lesson_slug=slug, created_at=utcnow())  # a concurrent first comment may win
        thread = db.scalar(select(CommentThread).where(CommentThread.lesson_slug == slug))
    return thread


def _thread_to_write(db: Session, slug: str) -> CommentThread:
    """The lesson's thread, created on first use. Nothing deletes threads, so a missing one after the
    insert means the row vanished under us: say "not found" rather than fail."""
    thread = thread_for(db, slug, create=True)
    if thread is None:
        raise CommentsError("not_found", status=404)
    return thread


def checked_body(cfg: CommentsConfig, body: str) -> str:
    text = normalise(body if isinstance(body, str) else "")
    if is_blank(text):
        raise CommentsError("empty", status=400)
    if len(text) > cfg.max_length:
        raise CommentsError("too_long", {"max": cfg.max_length, "n": len(text)}, status=400)
    return text


def _visible_comment(db: Session, comment_id: int, viewer: User | None) -> Comment:
    comment = db.get(Comment, comment_id) if isinstance(comment_id, int) else None
    if comment is None or (comment.hidden_at is not None and not can_moderate(viewer)):
        raise CommentsError("not_found", status=404)
    return comment


def _own(comment: Comment, user: User) -> None:
    if comment.author_id != user.id:
        raise CommentsError("not_yours", status=403)
    if comment.deleted_at is not None:
        raise CommentsError("deleted", status=409)


def _unlocked(db: Session, thread_id: int) -> CommentThread:
    thread = db.get(CommentThread, thread_id)
    if thread is None:  # a comment's thread_id is a foreign key; only a vanished row gets here
        raise CommentsError("not_found", status=404)
    if thread.locked_at is not None:
        raise CommentsError("locked", status=409)
    return thread


def post(db: Session, cfg: CommentsConfig, user: User, slug: str, lang: str, body: str,
         parent_id: int | None = None, lesson_slugs: frozenset[str] = frozenset()) -> Comment:
    text = checked_body(cfg, body)
    thread = _thread_to_write(db, slug)
    if thread.locked_at is not None:
        raise CommentsError("locked", status=409)
    parent = None
    if parent_id is not None:
        parent = _visible_comment(db, parent_id, user)
        if parent.thread_id != thread.id:
            raise CommentsError("not_found", status=404)
        if parent.deleted_at is not None:
            raise CommentsError("deleted", status=409)
    wait = take(db, "comment", str(user.id), cfg.comment_rates)
    if wait:
        raise CommentsError("rate_limited", {"seconds": wait}, status=429, headers={"Retry-After": str(wait)})
    comment = Comment(thread_id=thread.id, parent_id=parent.id if parent else None,
                      root_id=(parent.root_id or parent.id) if parent else None,
                      depth=parent.depth + 1 if parent else 0, author_id=user.id, lang=lang, body=text,
                      body_html=render_comment(text), created_at=utcnow())
    db.add(comment)
    db.flush()
    insert_once(db, CommentFollow, user_id=user.id, thread_id=thread.id, created_at=utcnow())
    for listener in COMMENT_POSTED:
        listener(db, comment, parent)
    record_comment_posted(db, user, comment.id, lesson_slugs)
    return comment


def edit(db: Session, cfg: CommentsConfig, user: User, comment_id: int, body: str) -> Comment:
    comment = _visible_comment(db, comment_id, user)
    _own(comment, user)
    _unlocked(db, comment.thread_id)
    text = checked_body(cfg, body)
    if text != comment.body:
        comment.body, comment.body_html, comment.edited_at = text, render_comment(text), utcnow()
    return comment


def delete(db: Session, user: User, comment_id: int) -> Comment:
    """The author's delete: the text goes, the row stays so replies keep their place."""
    comment = _visible_comment(db, comment_id, user)
    _own(comment, user)
    comment.deleted_at, comment.body, comment.body_html = utcnow(), "", ""
    return comment


def _moderator(user: User) -> None:
    if not can_moderate(user):
        raise CommentsError("forbidden", status=403)


def set_hidden(db: Session, user: User, comment_id: int, hidden: bool) -> Comment:
    _moderator(user)
    comment = _visible_comment(db, comment_id, user)
    comment.hidden_at, comment.hidden_by = (utcnow(), user.id) if hidden else (None, None)
    return comment


def set_locked(db: Session, user: User, slug: str, locked: bool) -> CommentThread:
    _moderator(user)
    thread = _thread_to_write(db, slug)
    thread.locked_at, thread.locked_by = (utcnow(), user.id) if locked else (None, None)
    return thread


def mark_helpful(db: Session, user: User, reply_id: int, lesson_slugs: frozenset[str] = frozenset()) -> Comment:
    reply = _visible_comment(db, reply_id, user)
    parent = db.get(Comment, reply.parent_id) if reply.parent_id else None
    if parent is None or parent.author_id != user.id:
        raise CommentsError("helpful_not_parent", status=403)
    if reply.author_id == user.id:
        raise CommentsError("helpful_own", status=403)
    if reply.deleted_at is not None:
        raise CommentsError("deleted", status=409)
    # one statement decides, so two clicks at once cannot both count
    marked = rows_changed(db, update(Comment).where(Comment.id == reply.id, Comment.helpful_at.is_(None))
                          .values(helpful_at=utcnow()))
    if not marked:
        raise CommentsError("helpful_done", status=409)
    db.refresh(reply)
    author = db.get(User, reply.author_id) if reply.author_id else None
    if author is not None:
        record_reply_marked_helpful(db, author, reply.id, marked_by=user.id, lesson_slugs=lesson_slugs)
    return reply


def report(db: Session, cfg: CommentsConfig, user: User, comment_id: int, reason: str) -> CommentReport:
    comment = _visible_comment(db, comment_id, user)
    if comment.deleted_at is not None:
        raise CommentsError("deleted", status=409)
    reason = normalise(reason if isinstance(reason, str) else "")
    if is_blank(reason) or len(reason) > cfg.report_reason_max:
        raise CommentsError("report_reason", status=400)
    wait = take(db, "comment-report", str(user.id), [(cfg.comment_reports_per_hour, 3600)])
    if wait:
        raise CommentsError("report_limited", {"seconds": wait}, status=429, headers={"Retry-After": str(wait)})
    new_id = insert_once(db, CommentReport, comment_id=comment.id, reporter_id=user.id, reason=reason,
                         created_at=utcnow())
    if new_id is None:
        raise CommentsError("report_done", status=409)
    stored = db.get(CommentReport, new_id)
    if stored is None:  # just inserted in this transaction, so only a vanished row gets here
        raise CommentsError("not_found", status=404)
    return stored


def set_following(db: Session, user: User, slug: str, follow: bool) -> bool:
    thread = thread_for(db, slug, create=follow)
    if thread is None:
        return False
    if follow:
        insert_once(db, CommentFollow, user_id=user.id, thread_id=thread.id, created_at=utcnow())
    else:
        db.query(CommentFollow).filter_by(user_id=user.id, thread_id=thread.id).delete()
    return follow


def is_following(db: Session, user: User | None, thread: CommentThread | None) -> bool:
    if user is None or thread is None:
        return False
    return db.scalar(select(CommentFollow.id).where(CommentFollow.user_id == user.id,
                                                    CommentFollow.thread_id == thread.id)) is not None


def authored_count(db: Session, user: User) -> int:
    """Comments of ``user`` whose text is still there (what "delete my account" asks about)."""
    return db.scalar(select(func.count()).select_from(Comment).where(Comment.author_id == user.id,
                                                                     Comment.deleted_at.is_(None))) or 0


def erase_all_by(db: Session, user: User) -> int:
    """Remove the text of every comment ``user`` wrote, as their own delete does (the rows stay so
    replies keep their place); for an account deleted with its contributions."""
    return rows_changed(db, update(Comment).where(Comment.author_id == user.id, Comment.deleted_at.is_(None))
                        .values(deleted_at=utcnow(), body="", body_html=""))
