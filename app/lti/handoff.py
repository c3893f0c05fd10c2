"""One-time hand-offs from a verified launch to a page opened in its own window.

A launch arrives as a cross-site POST, often inside the LMS's iframe, where browsers withhold or refuse
cookies. So the launch itself signs nobody in: it stores what it verified under a random token and
gives the learner a link (or, for a launch into a new window, a redirect) to
``/{lang}/lti/continue/{token}``, a first-party page that sets our ordinary session cookie. The token
works once (deleted in the transaction that uses it) and for ten minutes; only its SHA-256 is stored.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import secrets
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.core.clock import utcnow
from app.lti.claims import Launch
from app.lti.messages import LtiError
from app.lti.models import LtiLaunchValue

LIFETIME = dt.timedelta(minutes=10)
TOKEN_SHAPE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _key(token: str) -> str:
    return "handoff-" + hashlib.sha256(token.encode()).hexdigest()


def issue(db: Session, platform_id: int, launch: Launch, extra: dict[str, Any] | None = None) -> str:
    token = secrets.token_urlsafe(32)
    value = {"platform_id": platform_id, "launch": dataclasses.asdict(launch), **(extra or {})}
    db.add(LtiLaunchValue(key=_key(token), value=json.dumps(value), expires_at=utcnow() + LIFETIME))
    db.flush()
    return token


def _well_formed(token: str) -> bool:
    return 20 <= len(token) <= 100 and set(token) <= TOKEN_SHAPE


def peek(db: Session, token: str) -> tuple[int, Launch, dict[str, Any]]:
    """The hand-off's platform and launch without using it up; 410 when used, expired or unknown."""
    row = db.scalar(select(LtiLaunchValue).where(LtiLaunchValue.key == _key(token),
                                                 LtiLaunchValue.expires_at > utcnow())) if _well_formed(token) else None
    if row is None:
        raise LtiError("handoff_used", status=410)
    value = json.loads(row.value)
    return int(value["platform_id"]), Launch(**value["launch"]), value


def take(db: Session, token: str) -> tuple[int, Launch, dict[str, Any]]:
    """Uses the hand-off up; a second request with the same token gets 410."""
    found = peek(db, token)
    result = db.execute(delete(LtiLaunchValue).where(LtiLaunchValue.key == _key(token),
                                                     LtiLaunchValue.expires_at > utcnow()))
    if not getattr(result, "rowcount", 0):  # a concurrent request used it between peek and delete
        raise LtiError("handoff_used", status=410)
    return found
