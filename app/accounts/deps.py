"""FastAPI dependencies: a database session, the caller's identity, CSRF, permissions.

Routes take them through the ``Annotated`` aliases below, one way everywhere (``db: SessionDep``,
``auth: AuthDep``), never as ``= Depends(...)`` defaults (tests/web/test_request_context.py checks).
The site's other shared objects come from ``app.core.services`` (``ServicesDep`` / ``services(request)``).
"""
from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.accounts import auth as authn
from app.accounts.messages import AccountsError
from app.accounts.roles import Permission, can
from app.core.services import services

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def db_session(request: Request) -> Iterator[Session]:
    with services(request).session_factory() as session:
        yield session


SessionDep = Annotated[Session, Depends(db_session)]


def current_auth(request: Request, db: SessionDep) -> authn.Auth | None:
    try:
        auth = authn.resolve(request, db)
    except authn.BadToken:
        raise AccountsError("bad_token", status=401, headers={"WWW-Authenticate": "Bearer"}) from None
    request.state.auth = auth
    return auth


OptionalAuthDep = Annotated[authn.Auth | None, Depends(current_auth)]  # None for a visitor


def require_auth(auth: OptionalAuthDep) -> authn.Auth:
    if auth is None:
        raise AccountsError("auth_required", status=401)
    return auth


AuthDep = Annotated[authn.Auth, Depends(require_auth)]  # signed in, else 401


class require_permission:  # noqa: N801  (used like the function it was: Depends(require_permission(...)))
    """A dependency: the signed-in caller (401 otherwise) whose role has ``permission`` (403 otherwise).
    An object rather than a closure so that the permission a route needs can be read off the route."""

    def __init__(self, permission: Permission) -> None:
        self.permission = permission

    def __call__(self, auth: AuthDep) -> authn.Auth:
        if not can(auth.user.role, self.permission):
            raise AccountsError("forbidden", status=403)
        return auth


# The signed-in caller whose role has the permission (401 signed out, 403 without it), one per permission
# a route asks for; the permission stays readable off the route (the dependency's call).
ReviewerDep = Annotated[authn.Auth, Depends(require_permission(Permission.REVIEW_SUBMISSIONS))]
UserManagerDep = Annotated[authn.Auth, Depends(require_permission(Permission.MANAGE_USERS))]
ProgressViewerDep = Annotated[authn.Auth, Depends(require_permission(Permission.VIEW_OTHERS_PROGRESS))]
XpAdjusterDep = Annotated[authn.Auth, Depends(require_permission(Permission.ADJUST_XP))]


async def csrf_protect(request: Request, auth: OptionalAuthDep) -> None:
    """Every state-changing request carries the session's CSRF token (header or form field).

    Requests authenticated by an API token skip this: a browser never attaches that header on
    its own, so a forged cross-site request cannot carry it. Forms shown before sign-in are
    checked against a double-submit cookie instead of a session.
    """
    if request.method in SAFE_METHODS or (auth is not None and auth.via == "token"):
        return
    sent = request.headers.get("x-csrf-token")
    if sent is None and request.headers.get("content-type", "").startswith(
            ("application/x-www-form-urlencoded", "multipart/form-data")):
        field = (await request.form()).get("csrf_token")
        sent = field if isinstance(field, str) else None  # a file upload named csrf_token is no token
    verify_csrf(request, auth, sent)


def verify_csrf(request: Request, auth: authn.Auth | None, sent: object) -> None:
    origin = request.headers.get("origin")
    if origin and origin != "null" and urlsplit(origin).netloc != request.headers.get("host", ""):
        raise AccountsError("csrf", status=403)
    expected = auth.csrf_token if auth is not None else request.cookies.get(authn.VISITOR_CSRF_COOKIE)
    if not expected or not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise AccountsError("csrf", status=403)


CsrfDep = Annotated[None, Depends(csrf_protect)]
CSRF: list[Any] = [Depends(csrf_protect)]  # a route's ``dependencies=CSRF``: the check, with no parameter


def signed_in_writer(auth: AuthDep, _csrf: CsrfDep) -> authn.Auth:
    """Signed in first (a visitor hears "sign in", 401), then the CSRF token of a cookie caller (403)."""
    return auth


WriterDep = Annotated[authn.Auth, Depends(signed_in_writer)]
