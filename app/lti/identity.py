"""LMS users and our accounts: one LMS ``sub`` per platform is bound to exactly one account.

The binding is made either by creating a new account at the first launch, or by the person signing in
to an account they already have and confirming the link. An LMS name or e-mail that matches an
existing account never joins them on its own: anyone can type any name into an LMS profile.
"""
from __future__ import annotations

import re
import secrets

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import users
from app.accounts.messages import AccountsError
from app.accounts.models import User
from app.core.clock import utcnow
from app.lti.messages import LtiError
from app.lti.models import LtiIdentity

NAME_CHARS = re.compile(r"[^\w.\-]+")


def user_for(db: Session, platform_id: int, subject: str) -> User | None:
    return db.scalar(select(User).join(LtiIdentity, LtiIdentity.user_id == User.id)
                     .where(LtiIdentity.platform_id == platform_id, LtiIdentity.subject == subject))


def _candidates(name: str) -> list[str]:
    base = NAME_CHARS.sub("", name.replace(" ", "."))[:24].strip(".-") or "learner"
    if len(base) < 3:
        base = f"{base}-lms"
    return [base] + [f"{base}-{secrets.randbelow(10**6):06d}" for _ in range(5)]


def create_account(db: Session, platform_id: int, subject: str, name: str, tz: str = "UTC") -> User:
    """A new account for an LMS user, with a random password nobody knows (they sign in through the LMS).
    Its username is made from the LMS name, with digits added when that name is taken or looks taken."""
    for candidate in _candidates(name):
        try:
            user = users.create_user(db, candidate, secrets.token_urlsafe(24), tz=tz)
            break
        except AccountsError:
            continue
    else:  # six taken names in a row: a name nobody can have picked
        user = users.create_user(db, f"lms-{secrets.token_hex(8)}", secrets.token_urlsafe(24), tz=tz)
    link(db, platform_id, subject, user)
    return user


def link(db: Session, platform_id: int, subject: str, user: User) -> None:
    """Binds the LMS user to ``user``; 409 when that LMS user is already bound (to anyone)."""
    db.add(LtiIdentity(platform_id=platform_id, subject=subject, user_id=user.id, created_at=utcnow()))
    try:
        db.flush()
    except IntegrityError:
        db.rollback()
        raise LtiError("identity_taken", status=409) from None
