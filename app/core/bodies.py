"""Request bodies, bounded while they are read and decoded one way: the plumbing every route module
builds its router with (``make_router``), below every feature.

Limits (FastAPI/Starlette's own body limiter, not ours): the application caps every body at
``DEFAULT_BODY_LIMIT`` and a route that needs more says so with ``max_body_size=`` in its decorator
(comments 64 KiB, submissions their own cap). Starlette counts bytes as they arrive and stops
reading at the limit, so a 180 MB POST costs at most the limit in memory; the 413 is raised inside
the route and answered by our error handlers in the reader's language.

``EarlyRefusalMiddleware`` (app/routes/bodies.py, the application's own) answers an oversized
declared ``Content-Length`` and a signed-out caller of a signed-in route before a single body byte
is read; it matches requests against ``routes_of(app)``, the routes of the application it serves.

``StrictJSONRoute`` decodes JSON with ``loads_strict`` (depth, lone surrogates, UTF-8) for every route,
and ``make_router`` is how route modules get a router that uses it.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterable, Iterator
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.routing import APIRoute
from starlette.datastructures import FormData
from starlette.responses import Response

from app.core.jsonbody import JsonBodyError, bad_text, loads_strict
from app.i18n.requests import use_language_paths

DEFAULT_BODY_LIMIT = 8 * 1024  # forms and small JSON actions
COMMENT_BODY_LIMIT = 64 * 1024
# Forms and JSON with a few thousand characters of text (a report, a grader's note, merged progress):
# 2,000 Korean characters are 18 KB percent-encoded.
FORM_TEXT_BODY_LIMIT = 32 * 1024
# Automatic form parsing: our forms have at most a handful of short fields and no files.
FORM_LIMITS = {"max_fields": 32, "max_files": 0, "max_part_size": FORM_TEXT_BODY_LIMIT}


class StrictJSONRequest(Request):
    # Awaited, as FastAPI does, never used as a context manager: a coroutine where Starlette's returns
    # an awaitable-or-context-manager wrapper.
    async def form(self, **kwargs: Any) -> FormData:  # type: ignore[override]
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


class StrictJSONRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict_handler


def _api_routes(routes: Iterable[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif isinstance(getattr(route, "original_router", None), APIRouter):  # FastAPI's entry for an included router
            yield from _api_routes(route.original_router.routes)


def routes_of(app: FastAPI) -> list[APIRoute]:
    """The API routes of one application, in the order it matches them (routers included)."""
    return list(_api_routes(app.router.routes))


def make_router(**kwargs: Any) -> APIRouter:
    """A router whose routes decode JSON strictly and cap bodies at DEFAULT_BODY_LIMIT unless a route
    says ``max_body_size=`` (the limit is Starlette's, enforced while the body is read)."""
    use_language_paths()  # page routes declare /{lang:lang}/...
    kwargs.setdefault("max_body_size", DEFAULT_BODY_LIMIT)
    kwargs.setdefault("form_limits", FORM_LIMITS)
    return APIRouter(route_class=StrictJSONRoute, **kwargs)
