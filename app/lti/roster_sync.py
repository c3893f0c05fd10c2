"""Names and Role Provisioning Services: the instructor pulls the course's roster from the LMS.

pylti1p3 asks the platform for a service token (a client assertion signed with our key) and pages
through the membership container. Each member's LMS role becomes their role in the class; a member
the LMS marks inactive or deleted, or no longer lists, leaves the class roster (their work stays).
Members who have not launched yet have no account here: they are recorded and join the class on their
first launch.
"""
from __future__ import annotations

import logging
from typing import Any

import requests
from pylti1p3.exception import LtiException
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.classes import roster
from app.classes.messages import ClassesError
from app.lti import courses, identity
from app.lti.claims import course_role
from app.lti.messages import LtiError
from app.lti.models import LtiContext, LtiPlatform
from app.lti.tool_config import registration_for

log = logging.getLogger(__name__)


def fetch_members(db: Session, platform: LtiPlatform, context: LtiContext) -> list[dict[str, Any]]:
    if not context.memberships_url:
        raise LtiError("no_roster", status=409)
    connector = ServiceConnector(registration_for(db, platform))
    service = NamesRolesProvisioningService(connector, {"context_memberships_url": context.memberships_url})
    try:
        return [dict(m) for m in service.get_members()]
    except (LtiException, requests.RequestException, ValueError, KeyError) as exc:
        log.warning("roster sync for LMS course %s failed: %s", context.id, type(exc).__name__)
        raise LtiError("roster_failed", status=502) from None


def sync(db: Session, platform: LtiPlatform, context: LtiContext) -> int:
    """Brings the course's members and the class roster in line with the LMS; returns how many
    members the LMS listed."""
    listed = fetch_members(db, platform, context)
    course_class = roster.find_by_external_id(db, courses.external_id(platform.id, context.context_id))
    seen: set[str] = set()
    for member in listed:
        subject = str(member.get("user_id") or "")[:255]
        if not subject or subject in seen:
            continue
        seen.add(subject)
        role, active = course_role(member.get("roles")), member.get("status", "Active") == "Active"
        user = identity.user_for(db, platform.id, subject)
        courses.set_member(db, context, subject, role=role, name=str(member.get("name") or ""),
                           user_id=user.id if user else None, active=active)
        if course_class is not None and user is not None:
            courses.join_class(db, course_class, user, role) if active else _leave(db, course_class.id, user)
    for row in courses.members(db, context.id):
        if row.subject not in seen and row.active:
            row.active = False
            if course_class is not None and row.user_id is not None:
                _leave(db, course_class.id, db.get(User, row.user_id))
    db.flush()
    return len(seen)


def _leave(db: Session, class_id: int, user: User | None) -> None:
    if user is None:
        return
    try:
        roster.remove_member(db, roster.get_class(db, class_id), user.id)
    except ClassesError:  # not on the roster, or the class's last instructor (the class keeps them)
        pass
