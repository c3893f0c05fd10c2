"""LMS courses (contexts) and who is in them with which role, from launches and roster syncs.

A role here holds for that course only: an LMS instructor can manage the course they launched from,
never the whole site (their account's site-wide role stays what it was).
"""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core.clock import utcnow
from app.lti.claims import Launch
from app.lti.models import LtiContext, LtiMember


def context_for(db: Session, platform_id: int, launch: Launch) -> LtiContext | None:
    """The course the launch came from, made on its first launch; None for a launch outside a course."""
    if launch.context_id is None:
        return None
    row = db.scalar(select(LtiContext).where(LtiContext.platform_id == platform_id,
                                             LtiContext.context_id == launch.context_id))
    if row is None:
        row = LtiContext(platform_id=platform_id, context_id=launch.context_id, title=launch.context_title,
                         created_at=utcnow())
        db.add(row)
    if launch.context_title:
        row.title = launch.context_title
    if launch.memberships_url:
        row.memberships_url = launch.memberships_url
    db.flush()
    return row


def set_member(db: Session, context: LtiContext, subject: str, *, role: str, name: str,
               user_id: int | None = None, active: bool = True) -> LtiMember:
    row = db.scalar(select(LtiMember).where(LtiMember.context_id == context.id, LtiMember.subject == subject))
    if row is None:
        row = LtiMember(context_id=context.id, subject=subject, role=role, name=name[:200])
        db.add(row)
    row.role, row.active, row.synced_at = role, active, utcnow()
    row.name = name[:200] or row.name
    if user_id is not None:
        row.user_id = user_id
    db.flush()
    return row


def role_in(db: Session, context_id: int, user_id: int) -> str | None:
    """The user's role in the course, or None when they are not an active member."""
    return db.scalar(select(LtiMember.role).where(LtiMember.context_id == context_id, LtiMember.user_id == user_id,
                                                  LtiMember.active.is_(True)))


def members(db: Session, context_id: int) -> list[LtiMember]:
    return list(db.scalars(select(LtiMember).where(LtiMember.context_id == context_id)
                           .order_by(LtiMember.role, LtiMember.name, LtiMember.id)))
