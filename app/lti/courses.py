"""LMS courses (contexts), the class each maps to, and who is in them with which role, from launches
and roster syncs.

A role holds for that course's class only: an LMS instructor manages the class they launched from,
never the whole site (their account's site-wide role stays what it was). The class is made on an
instructor's first launch (a learner cannot create classes); learners who launched earlier are put on
its roster then. Its ``external_id`` names the platform and the context, so one context is one class.
"""
from __future__ import annotations

import hashlib

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.classes import roster
from app.classes.messages import ClassesError
from app.classes.models import CourseClass
from app.core.clock import utcnow
from app.core.ids import row_id
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
    if launch.lineitems_url:
        row.lineitems_url, row.ags_scopes = launch.lineitems_url, launch.ags_scopes
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


def members(db: Session, context_id: int) -> list[LtiMember]:
    return list(db.scalars(select(LtiMember).where(LtiMember.context_id == context_id)
                           .order_by(LtiMember.role, LtiMember.name, LtiMember.id)))


def external_id(platform_id: int, context_id: str) -> str:
    """``lti:<platform>:<context>``; a context id too long for the column is replaced by its SHA-256."""
    name = f"lti:{platform_id}:{context_id}"
    return name if len(name) <= 255 else f"lti:{platform_id}:sha256:{hashlib.sha256(context_id.encode()).hexdigest()}"


def context_of_class(db: Session, row: CourseClass) -> LtiContext | None:
    """The LMS course a class was made for (its ``external_id`` is ``external_id(platform, context)``)."""
    name = row.external_id or ""
    if not name.startswith("lti:"):
        return None
    platform, _, context_id = name.removeprefix("lti:").partition(":")
    platform_id = row_id(platform)
    if platform_id is None:
        return None
    query = select(LtiContext).where(LtiContext.platform_id == platform_id)
    if not context_id.startswith("sha256:"):  # the plain form names the context; the hashed one must be matched
        query = query.where(LtiContext.context_id == context_id)
    return next((c for c in db.scalars(query) if external_id(c.platform_id, c.context_id) == name), None)


def class_for(db: Session, context: LtiContext, role: str, user: User, lang: str) -> CourseClass | None:
    """The context's class; an instructor's launch creates it (with them as its first instructor)."""
    ext = external_id(context.platform_id, context.context_id)
    row = roster.find_by_external_id(db, ext)
    if row is not None or role != "instructor":
        return row
    try:
        row = roster.create_class(db, user, (context.title or context.context_id)[:120], notice_lang=lang,
                                  external_id=ext)
    except ClassesError:  # another instructor's launch created it a moment ago
        return roster.find_by_external_id(db, ext)
    for member in members(db, context.id):  # learners who launched before the class existed
        if member.user_id is not None and member.active and member.user_id != user.id:
            join_class(db, row, db.get(User, member.user_id), member.role)
    return row


def join_class(db: Session, row: CourseClass, user: User | None, role: str) -> None:
    """Puts the user on the class's roster with their LMS role (updating it when it changed)."""
    if user is None:
        return
    try:
        roster.add_member(db, row, user, role=role, source="lti")
    except ClassesError:  # the LMS demoted the class's last instructor: the class keeps them
        pass
