"""Request bodies, bounded while they are read and decoded one way.

Limits (FastAPI/Starlette's own body limiter, not ours): the application caps every body at
``DEFAULT_BODY_LIMIT`` and a route that needs more says so with ``max_body_size=`` in its decorator
(comments 64 KiB, submissions their own cap). Starlette counts bytes as they arrive and stops
reading at the limit, so a 180 MB POST costs at most the limit in memory; the 413 is raised inside
the route and answered by our error handlers in the reader's language.

``EarlyRefusalMiddleware`` answers two cases before a single body byte is read:
- a declared ``Content-Length`` over the route's limit (Starlette would otherwise answer it in English);
- a route that needs a signed-in caller (it depends on ``require_auth``) reached with no session
  cookie and no Authorization header: FastAPI reads and parses bodies before it resolves
  dependencies, so without this the sign-in check would come after the body.

``StrictJSONRoute`` decodes JSON with ``loads_strict`` (depth, lone surrogates, UTF-8) for every route,
and ``make_router`` is how route modules get a router that uses it.
"""
from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from app.core.jsonbody import JsonBodyError, bad_text, loads_strict

DEFAULT_BODY_LIMIT = 8 * 1024  # forms and small JSON actions
COMMENT_BODY_LIMIT = 64 * 1024
# Forms and JSON with a few thousand characters of text (a report, a grader's note, merged progress):
# 2,000 Korean characters are 18 KB percent-encoded.
FORM_TEXT_BODY_LIMIT = 32 * 1024
# Automatic form parsing: our forms have at most a handful of short fields and no files.
FORM_LIMITS = {"max_fields": 32, "max_files": 0, "max_part_size": FORM_TEXT_BODY_LIMIT}
_UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}


class StrictJSONRequest(Request):
    async def form(self, **kwargs: Any):
        form = await super().form(**kwargs)
        for key, value in form.multi_items():
            if bad_text(key) or (isinstance(value, str) and bad_text(value)):
                raise HTTPException(status_code=400)  # answered by our handler in the reader's language
        return form

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                self._json = loads_strict(body)
            except JsonBodyError as exc:
                # FastAPI answers a JSONDecodeError with its validation error: our translated 422.
                raise json.JSONDecodeError(exc.code, body.decode("utf-8", "replace")[:200], 0) from None
        return self._json


# Every route made by a router from make_router, for EarlyRefusalMiddleware to match requests against
# before the application routes them (the routers are module-level, so this is filled at import).
ROUTES: list[StrictJSONRoute] = []


class StrictJSONRoute(APIRoute):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        ROUTES.append(self)

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def strict_handler(request: Request):
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict_handler


def make_router(**kwargs: Any) -> APIRouter:
    """A router whose routes decode JSON strictly and cap bodies at DEFAULT_BODY_LIMIT unless a route
    says ``max_body_size=`` (the limit is Starlette's, enforced while the body is read)."""
    kwargs.setdefault("max_body_size", DEFAULT_BODY_LIMIT)
    kwargs.setdefault("form_limits", FORM_LIMITS)
    return APIRouter(route_class=StrictJSONRoute, **kwargs)


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

    @staticmethod
    def _route(scope: Scope) -> APIRoute | None:
        for route in ROUTES:
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
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, params: dict | None) -> None:
        from app.routes.errors import error_response

        response = error_response(Request(scope, receive), status, params)
        response.headers["Connection"] = "close"  # the unread body is not drained
        await response(scope, receive, send)
