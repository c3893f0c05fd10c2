"""Who is asking: server-side sessions (cookie) and personal API tokens (Authorization: Bearer).

The cookie holds a random token; the database holds its SHA-256, the user, the expiry and the
session's CSRF token. Signing in always makes a new session (no fixation); signing out deletes
the row; "sign out everywhere" deletes all of the user's rows (and revokes their API tokens when asked: the
profile page says tokens outlive it otherwise).
"""
from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from fastapi import Request, Response
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import ApiToken, AuthSession, User
from app.accounts.ratelimit import Rate
from app.core.clock import utcnow
from app.core.config import Settings
from app.core.db import lock_rows, rows_changed

SESSION_COOKIE = "mkc_session"
VISITOR_CSRF_COOKIE = "mkc_csrf"  # double-submit token for forms shown before there is a session
TOKEN_PREFIX = "mkc_"
# Personal API tokens that work at once, per account: each is a way in that the profile lists, and a
# learner could otherwise make them without end (a page of thousands, a table that only grows).
MAX_LIVE_API_TOKENS = 20
MAX_COOKIE_CHARS = 200  # our session tokens are 43 characters; a longer cookie names no session and is not hashed


@dataclass
class AccountsConfig:
    """Session lifetime and rate limits, from the settings (MKC_SESSION_HOURS, MKC_SIGNIN_USER_LIMIT,
    MKC_SIGNIN_IP_LIMIT, MKC_SIGNUP_LIMIT); one of the app's services
    (app/core/services.py); tests set its fields."""

    session_ttl: dt.timedelta
    # failed sign-ins per (IP, username) and per IP; sign-ups per IP: attempts per window
    # (database slots, app/accounts/ratelimit.py: atomic, shared by every server process)
    signin_per_user: Rate
    signin_per_ip: Rate
    signup_per_ip: Rate

    @classmethod
    def from_settings(cls, settings: Settings) -> AccountsConfig:
        return cls(session_ttl=dt.timedelta(hours=settings.session_hours),
                   signin_per_user=Rate.parse(settings.signin_user_limit),
                   signin_per_ip=Rate.parse(settings.signin_ip_limit),
                   signup_per_ip=Rate.parse(settings.signup_limit))


@dataclass
class Auth:
    user: User
    via: str  # "cookie" | "token"
    session: AuthSession | None = None

    @property
    def csrf_token(self) -> str | None:
        return self.session.csrf_token if self.session else None


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


# ---- sessions ------------------------------------------------------------------------------------

def start_session(db: Session, user: User, ttl: dt.timedelta, user_agent: str = "") -> tuple[str, AuthSession]:
    token = secrets.token_urlsafe(32)
    now = utcnow()
    row = AuthSession(token_hash=digest(token), user_id=user.id, csrf_token=secrets.token_urlsafe(32),
                      created_at=now, expires_at=now + ttl, user_agent=user_agent[:200])
    db.add(row)
    db.flush()
    return token, row


def set_session_cookie(response: Response, request: Request, token: str, ttl: dt.timedelta) -> None:
    response.set_cookie(SESSION_COOKIE, token, max_age=int(ttl.total_seconds()), httponly=True,
                        samesite="lax", secure=request.url.scheme == "https", path="/")


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")


def end_session(db: Session, auth: Auth) -> None:
    if auth.session is not None:
        db.execute(delete(AuthSession).where(AuthSession.id == auth.session.id))


def end_all_sessions(db: Session, user: User) -> int:
    return rows_changed(db, delete(AuthSession).where(AuthSession.user_id == user.id))


# ---- API tokens ----------------------------------------------------------------------------------

def create_api_token(db: Session, user: User, name: str) -> tuple[str, ApiToken]:
    """Returns the token text (shown once, never stored) and its row."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(user_id=user.id, name=name, token_hash=digest(token), prefix=token[:10], created_at=utcnow())
    db.add(row)
    db.flush()
    return token, row


def may_add_api_token(db: Session, user: User) -> bool:
    """Whether ``user`` holds fewer than MAX_LIVE_API_TOKENS working tokens, counted under a lock on
    their row until the transaction ends, so that two new tokens at once cannot both pass."""
    lock_rows(db, User.tz, User.id == user.id)
    live = db.scalar(select(func.count()).select_from(ApiToken).where(ApiToken.user_id == user.id,
                                                                      ApiToken.revoked_at.is_(None))) or 0
    return live < MAX_LIVE_API_TOKENS


def list_api_tokens(db: Session, user: User) -> list[ApiToken]:
    return list(db.scalars(select(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
                           .order_by(ApiToken.created_at.desc())))


def revoke_api_token(db: Session, user: User, token_id: int) -> bool:
    row = db.get(ApiToken, token_id)
    if row is None or row.user_id != user.id or row.revoked_at is not None:
        return False
    row.revoked_at = utcnow()
    return True


def revoke_all_api_tokens(db: Session, user: User) -> int:
    return rows_changed(db, update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
                        .values(revoked_at=utcnow()))


# ---- resolving a request ------------------------------------------------------------------------

class BadToken(Exception):
    """An Authorization header was sent but names no live token: answer 401, never fall back."""


class SessionRow(Protocol):
    @property
    def expires_at(self) -> dt.datetime: ...


Row = TypeVar("Row", bound=SessionRow)


def live_session(cookie: str | None, lookup: Callable[[str], Row | None],
                 on_expired: Callable[[Row], None]) -> Row | None:
    """The one rule for a session cookie, used by the API (``resolve``) and by page views
    (app/progress/page_state.py, which looks the row up with its own faster statements): a cookie of
    sane length names the row with its token's hash, and that row counts only while it has not
    expired. An expired row goes to ``on_expired`` (which deletes it, or leaves that to a view that
    may write) and the caller is a visitor. The CSRF token a state-changing request must carry is the
    live row's own (``Auth.csrf_token``, the page's csrf-token meta; checked by deps.verify_csrf)."""
    if not cookie or len(cookie) > MAX_COOKIE_CHARS:
        return None
    row = lookup(digest(cookie))
    if row is None:
        return None
    if row.expires_at <= utcnow():
        on_expired(row)
        return None
    return row


def delete_expired(db: Session, row: AuthSession) -> None:
    """``live_session``'s on_expired for callers that may write: the expired row is gone at once."""
    db.execute(delete(AuthSession).where(AuthSession.id == row.id))
    db.commit()


def resolve(request: Request, db: Session) -> Auth | None:
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise BadToken()
        row = db.scalar(select(ApiToken).where(ApiToken.token_hash == digest(value.strip()),
                                               ApiToken.revoked_at.is_(None)))
        if row is None:
            raise BadToken()
        user = db.get(User, row.user_id)
        if user is None:
            raise BadToken()
        now = utcnow()
        if row.last_used_at is None or now - row.last_used_at > dt.timedelta(minutes=1):
            row.last_used_at = now
            db.commit()
        return Auth(user, "token")
    session = live_session(request.cookies.get(SESSION_COOKIE),
                           lambda token_hash: db.scalar(select(AuthSession).where(AuthSession.token_hash == token_hash)),
                           lambda expired: delete_expired(db, expired))
    if session is None:
        return None
    user = db.get(User, session.user_id)
    return Auth(user, "cookie", session) if user else None
