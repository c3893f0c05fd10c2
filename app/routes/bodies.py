"""Refusing a request before its body is read: the application's middleware over the routers that
app/core/bodies.py makes (it caps bodies per route while they are read and decodes JSON strictly).

``EarlyRefusalMiddleware`` answers two cases before a single body byte is read:
- a declared ``Content-Length`` over the route's limit (Starlette would otherwise answer it in English);
- a route that needs a signed-in caller (it depends on ``require_auth``) reached with no session
  cookie and no Authorization header: FastAPI reads and parses bodies before it resolves
  dependencies, so without this the sign-in check would come after the body.
The refusal is answered by our error handlers in the reader's language.
"""
from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from app.core.bodies import DEFAULT_BODY_LIMIT, routes_of

_UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


def _needs_signed_in_caller(route: APIRoute) -> bool:
    from app.accounts.deps import require_auth

    stack = list(route.dependant.dependencies)
    while stack:
        dep = stack.pop()
        if dep.call is require_auth:
            return True
        stack.extend(dep.dependencies)
    return False


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _has_credentials(scope: Scope) -> bool:
    from app.accounts.auth import SESSION_COOKIE

    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            return True
        if name == b"cookie" and SESSION_COOKIE.encode() + b"=" in value:
            return True
    return False


class EarlyRefusalMiddleware:
    def __init__(self, app: ASGIApp, default_limit: int = DEFAULT_BODY_LIMIT):
        self.app = app
        self.default_limit = default_limit
        self._needs_auth: dict[int, bool] = {}  # id(route) -> depends on require_auth
        self._routes: list[APIRoute] | None = None  # the served application's, read at its first request

    def _route(self, scope: Scope) -> APIRoute | None:
        if self._routes is None:
            # scope["app"] is the application this middleware serves: only its routes are matched (the
            # factory includes every router before the first request, so the list is complete then)
            self._routes = routes_of(scope["app"])
        for route in self._routes:
            if route.matches(scope)[0] == Match.FULL:
                return route
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        # No address or query of ours carries a NUL, and PostgreSQL text cannot hold one.
        if "\x00" in scope["path"]:
            return await self._refuse(scope, receive, send, 404, None)
        if b"%00" in scope.get("query_string", b"").lower():
            return await self._refuse(scope, receive, send, 400, None)
        if scope["method"] not in _UNSAFE:
            return await self.app(scope, receive, send)
        route = self._route(scope)
        status, params = None, None
        if route is not None:
            declared = _declared_length(scope)
            limit = route.max_body_size if route.max_body_size is not None else self.default_limit
            if declared is not None and declared > limit:
                status, params = 413, {"bytes": declared, "limit": limit}
            elif scope["path"].startswith("/api/"):  # pages keep their own sign-in answer (a form to sign in)
                key = id(route)
                if key not in self._needs_auth:
                    self._needs_auth[key] = _needs_signed_in_caller(route)
                if self._needs_auth[key] and not _has_credentials(scope):
                    status = 401
        if status is None:
            return await self.app(scope, receive, send)
        await self._refuse(scope, receive, send, status, params)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, params: dict[str, Any] | None) -> None:
        from app.routes.errors import error_response

        response = error_response(Request(scope, receive), status, params)
        response.headers["Connection"] = "close"  # the unread body is not drained
        await response(scope, receive, send)
