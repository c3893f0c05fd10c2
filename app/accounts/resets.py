"""One-time password-reset links. There is no email: an administrator makes a link (on
/{lang}/admin/users or with ``python -m app reset-link``) and hands it to the user, who chooses a new
password on it. A link lasts ``LINK_HOURS``, works once, and a newer link for the same user replaces
it. Setting the new password ends every session of that user (whoever had the old one is out)."""
from __future__ import annotations

import datetime as dt
import secrets
from typing import Any, cast

from sqlalchemy import CursorResult, delete, update
from sqlalchemy.orm import Session

from app.accounts import auth as authn
from app.accounts import passwords
from app.accounts.messages import AccountsError
from app.accounts.models import PasswordReset, User
from app.core.clock import utcnow

LINK_HOURS = 24


def issue(db: Session, user: User, created_by: str) -> str:
    """A new link's secret (shown once, stored only as its hash); earlier unused links stop working."""
    db.execute(delete(PasswordReset).where(PasswordReset.user_id == user.id, PasswordReset.used_at.is_(None)))
    token = secrets.token_urlsafe(32)
    now = utcnow()
    db.add(PasswordReset(token_hash=authn.digest(token), user_id=user.id, created_by=created_by[:64],
                         created_at=now, expires_at=now + dt.timedelta(hours=LINK_HOURS)))
    db.flush()
    return token


def path(lang: str, token: str) -> str:
    return f"/{lang}/reset-password/{token}"


def pending(db: Session, token: str) -> User | None:
    """The user a link still open belongs to, else None (unknown, used or expired)."""
    if not token or len(token) > 100:
        return None
    row = db.query(PasswordReset).filter(PasswordReset.token_hash == authn.digest(token),
                                         PasswordReset.used_at.is_(None),
                                         PasswordReset.expires_at > utcnow()).one_or_none()
    return db.get(User, row.user_id) if row is not None else None


def redeem(db: Session, token: str, password: str, password2: str) -> User:
    """Set the new password through the link; raises AccountsError (the link stays usable when only the
    password was refused). Claiming the link is one conditional UPDATE: of two submissions at once,
    exactly one changes the password."""
    user = pending(db, token)
    if user is None:
        raise AccountsError("reset_link_invalid", status=404)
    if password != password2:
        raise AccountsError("password_mismatch", status=400)
    problem = passwords.password_problem(password, user.username)
    if problem:
        raise AccountsError(problem, status=400)
    claimed = cast("CursorResult[Any]", db.execute(update(PasswordReset).where(PasswordReset.token_hash == authn.digest(token),
                                                     PasswordReset.used_at.is_(None))
                         .values(used_at=utcnow()))).rowcount
    if claimed != 1:
        raise AccountsError("reset_link_invalid", status=404)
    user.password_hash = passwords.hash_password(password)
    authn.end_all_sessions(db, user)
    return user
