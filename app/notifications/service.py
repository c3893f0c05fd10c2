"""Who hears about a new comment or a changed verdict, and reading the bell.

A grader's override of a submission's verdict notifies the submission's author ("verdict"),
whatever their comment setting says: it changes their own result, XP and achievements. So does a
grader striking their entry from the leaderboards ("strike", app/classes/boards.py). The
text is written when it is read, in the reader's language, and carries the grader's note.

A new comment notifies the author of the comment it answers ("reply") and everyone following
the lesson's thread ("thread"), never the writer, never someone whose setting is "off". The
unique (user, comment) key means a recipient gets one notification per comment, however many
reasons apply and however often the code runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVarTuple

from sqlalchemy import Select, and_, func, or_, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.classes import boards
from app.classes.models import BoardStrike
from app.comments import service as comments
from app.comments.models import Comment, CommentFollow, CommentThread
from app.core.clock import utcnow
from app.core.db import get_or_create, rows_changed
from app.notifications.models import Notification, NotificationPreference
from app.progress.once import insert_once

if TYPE_CHECKING:
    from app.submissions.models import SubmissionReview

MODES = ("reply", "off")


def mode_for(db: Session, user_id: int) -> str:
    return db.scalar(select(NotificationPreference.mode).where(NotificationPreference.user_id == user_id)) or "reply"


def set_mode(db: Session, user: User, mode: str) -> str:
    if mode not in MODES:
        mode = "reply"
    get_or_create(db, NotificationPreference, user.id, user_id=user.id, mode=mode).mode = mode
    return mode


def comment_posted(db: Session, comment: Comment, parent: Comment | None) -> int:
    """Create the notifications a new comment causes; returns how many were created."""
    recipients: dict[int, str] = {}
    if parent is not None and parent.author_id is not None:
        recipients[parent.author_id] = "reply"
    for user_id in db.scalars(select(CommentFollow.user_id).where(CommentFollow.thread_id == comment.thread_id)):
        recipients.setdefault(user_id, "thread")
    if comment.author_id is not None:
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


comments.COMMENT_POSTED.append(comment_posted)  # app.comments.service.post calls it for every new comment


def verdict_changed(db: Session, review: SubmissionReview, learner_id: int) -> bool:
    """The notification of a grader's override (one per audit entry, by the unique key)."""
    if review.grader_id == learner_id:
        return False
    return insert_once(db, Notification, user_id=learner_id, review_id=review.id, comment_id=None,
                       actor_id=review.grader_id, kind="verdict", created_at=utcnow()) is not None


def board_struck(db: Session, strike: BoardStrike, learner_id: int) -> bool:
    """The notification of a grader striking a leaderboard entry (one per strike, by the unique key)."""
    if strike.grader_id == learner_id:
        return False
    return insert_once(db, Notification, user_id=learner_id, strike_id=strike.id, comment_id=None,
                       actor_id=strike.grader_id, kind="strike", created_at=utcnow()) is not None


boards.STRUCK.append(board_struck)  # app.classes.boards.strike calls it for every new strike


_Row = TypeVarTuple("_Row")  # the selected columns, kept by the filter


def _visible(query: Select[*_Row]) -> Select[*_Row]:
    """Only notifications that can still be read: a verdict change, a strike, or a comment not hidden or deleted."""
    return query.outerjoin(Comment, Comment.id == Notification.comment_id).where(or_(
        Notification.review_id.is_not(None), Notification.strike_id.is_not(None),
        and_(Comment.id.is_not(None), Comment.hidden_at.is_(None), Comment.deleted_at.is_(None))))


def unread_count(db: Session, user: User) -> int:
    return db.scalar(_visible(select(func.count()).select_from(Notification))
                     .where(Notification.user_id == user.id, Notification.read_at.is_(None))) or 0


@dataclass
class NotificationView:
    id: int
    kind: str
    actor: str | None
    lesson_slug: str | None
    comment_id: int | None
    lang: str | None
    created_at: Any
    read: bool
    # a verdict change: submission, exercise, before, after, note (the grader's reason), xp_delta
    review: dict[str, Any] | None = field(default=None)
    # a leaderboard strike: submission, exercise, note (the grader's reason), grader
    strike: dict[str, Any] | None = field(default=None)


def recent(db: Session, user: User, limit: int = 50) -> list[NotificationView]:
    from app.submissions.models import Submission, SubmissionReview

    struck = Submission.__table__.alias("struck_submission")
    rows = db.execute(_visible(select(Notification, Comment.lang, CommentThread.lesson_slug, User.username,
                                      SubmissionReview, Submission.exercise_id, BoardStrike, struck.c.exercise_id)
                               .select_from(Notification))
                      .outerjoin(CommentThread, CommentThread.id == Comment.thread_id)
                      .outerjoin(User, User.id == Notification.actor_id)
                      .outerjoin(SubmissionReview, SubmissionReview.id == Notification.review_id)
                      .outerjoin(Submission, Submission.id == SubmissionReview.submission_id)
                      .outerjoin(BoardStrike, BoardStrike.id == Notification.strike_id)
                      .outerjoin(struck, struck.c.id == BoardStrike.submission_id)
                      .where(Notification.user_id == user.id)
                      .order_by(Notification.created_at.desc(), Notification.id.desc()).limit(limit))
    out = []
    for n, lang, slug, actor, review, exercise_id, strike, struck_exercise in rows:
        about = struck_entry = None
        if strike is not None:
            struck_entry = {"submission": strike.submission_id, "exercise": struck_exercise, "note": strike.reason,
                            "grader": strike.grader_name or actor, "class_id": strike.class_id}
        if review is not None:
            about = {"submission": review.submission_id, "exercise": exercise_id, "before": review.verdict_before,
                     "after": review.verdict_after, "note": review.reason, "xp_delta": review.xp_delta,
                     "grader": review.grader_name or actor}
        out.append(NotificationView(n.id, n.kind, actor, slug, n.comment_id, lang, n.created_at,
                                    n.read_at is not None, about, struck_entry))
    return out


def verdict_text(view: NotificationView, lang: str, exercise_title: str | None = None) -> str:
    """The sentence of a verdict notification in ``lang`` (the note is shown beside it)."""
    from app.core import vocabulary
    from app.i18n import gettext_for

    _ = gettext_for(lang)
    about = view.review or {}
    text = _("A grader changed the verdict of your submission #%(id)s (%(exercise)s) from “%(before)s” "
             "to “%(after)s”.") % {"id": about.get("submission"), "exercise": exercise_title or about.get("exercise"),
                                    "before": vocabulary.label(vocabulary.VERDICT, about.get("before"), lang),
                                    "after": vocabulary.label(vocabulary.VERDICT, about.get("after"), lang)}
    if about.get("xp_delta"):
        text += " " + _("Your XP changed by %(xp)s.") % {"xp": f"{about['xp_delta']:+d}"}
    return text


def strike_text(view: NotificationView, lang: str, exercise_title: str | None = None) -> str:
    """The sentence of a strike notification in ``lang`` (the grader's reason is shown beside it)."""
    from app.i18n import gettext_for

    _ = gettext_for(lang)
    about = view.strike or {}
    return _("A grader removed your submission #%(id)s (%(exercise)s) from the leaderboards.") % {
        "id": about.get("submission"), "exercise": exercise_title or about.get("exercise")}


def comment_text(view: NotificationView, lang: str, lesson_title: str | None = None) -> str:
    """The sentence of a reply or thread notification in ``lang``."""
    from app.i18n import gettext_for

    _ = gettext_for(lang)
    values = {"name": view.actor or _("deleted account"), "lesson": lesson_title or view.lesson_slug}
    if view.kind == "reply":
        return _("%(name)s replied to your comment on “%(lesson)s”") % values
    return _("%(name)s commented on “%(lesson)s”, a thread you follow") % values


def mark_read(db: Session, user: User, notification_id: int) -> bool:
    return bool(rows_changed(db, update(Notification).where(Notification.id == notification_id,
                                                            Notification.user_id == user.id,
                                                            Notification.read_at.is_(None))
                             .values(read_at=utcnow())))


def mark_all_read(db: Session, user: User) -> int:
    return rows_changed(db, update(Notification).where(Notification.user_id == user.id, Notification.read_at.is_(None))
                        .values(read_at=utcnow()))
