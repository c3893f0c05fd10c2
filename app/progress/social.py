"""What comments do to progress (called by app/comments/service.py): a comment posted and a reply
marked helpful are events, and they count toward achievements (no XP). Callers commit the session.
"""
from __future__ import annotations

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.progress import events as ev
from app.progress.achievements import award_achievements
from app.progress.registry import Achievement


def record_comment_posted(session: Session, user: User, comment_id: int | str,
                          lesson_slugs: frozenset[str] = frozenset()) -> list[Achievement]:
    ev.record_event(session, user, ev.COMMENT_POSTED, subject=str(comment_id), dedupe=f"comment:{comment_id}")
    return award_achievements(session, user, lesson_slugs)


def record_reply_marked_helpful(session: Session, reply_author: User, reply_id: int | str, marked_by: int,
                                lesson_slugs: frozenset[str] = frozenset()) -> list[Achievement]:
    """``marked_by`` is the user id of the comment's author who marked the reply helpful."""
    ev.record_event(session, reply_author, ev.REPLY_MARKED_HELPFUL, subject=str(reply_id),
                    dedupe=f"reply:{reply_id}", data={"marked_by": marked_by, "reply_author": reply_author.id})
    return award_achievements(session, reply_author, lesson_slugs)
