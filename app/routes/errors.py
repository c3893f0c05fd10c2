"""Every refusal rendered in one place, in the reader's language — never a traceback, never raw English.

A feature raises ``AppError`` (app/core/errors.py); an HTTPException, FastAPI's validation error and
an unhandled exception become one by their status. Anything under /api/ gets JSON:
``{"error": code, "message": text in the reader's language, "params": {...}}``; a page gets the
error page: the refusal's own sentence (``accounts/message.html``) or, for a bare status, the
page that explains the status (``error.html``).

The reader's language: the one a route settled for this request (``request.state.ui_lang``, e.g. the
``lang`` of a comment being posted), else ``?lang=`` on /api/ paths, else the URL prefix, the cookie,
Accept-Language and the site's default (app/i18n/requests.py).
"""
from __future__ import annotations

import logging
from typing import Any

import psycopg
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.accounts.views import account_context, render
from app.core.config import LANGUAGES
from app.core.errors import AppError
from app.core.languages import api_lang, reader_language
from app.core.services import services
from app.templating import page_context

log = logging.getLogger(__name__)


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def error_language(request: Request) -> str:
    settled = getattr(request.state, "ui_lang", None)
    if isinstance(settled, str) and settled in LANGUAGES:
        return settled
    if _is_api(request):
        return api_lang(request)
    return reader_language(request)


def _api_answer(exc: AppError, lang: str) -> JSONResponse:
    return JSONResponse({"error": exc.code, "message": exc.message(lang), "params": exc.params},
                        status_code=exc.status, headers=exc.headers)


def _page(request: Request, exc: AppError, lang: str, *, bare_status: bool) -> Response:
    if not bare_status:  # a refusal with its own sentence, under the site's header (who is signed in)
        context = account_context(request, lang, "/", getattr(request.state, "auth", None))
        context.update(status=exc.status, error_text=exc.message(lang))
        return render(request, "accounts/message.html", context, status=exc.status, headers=exc.headers)
    context = page_context(lang, "/", services(request).settings.site_name)
    context.update(status=exc.status, status_message=exc.message(lang))
    try:
        html = services(request).templates.get_template("error.html").render(context)
    except Exception:  # the error page itself must not fail
        log.exception("error template failed")
        html = f"<!doctype html><title>{exc.status}</title><h1>{exc.status}</h1>"
    return HTMLResponse(html, status_code=exc.status, headers=exc.headers)


def render_error(request: Request, exc: AppError, *, bare_status: bool = False) -> Response:
    """The answer to a refusal: JSON under /api/, the error page elsewhere."""
    lang = error_language(request)
    return _api_answer(exc, lang) if _is_api(request) else _page(request, exc, lang, bare_status=bare_status)


def error_response(request: Request, status: int, params: dict[str, Any] | None = None) -> Response:
    """The answer for a bare ``status`` (a body refused before the route ran)."""
    return render_error(request, AppError.for_status(status, params), bare_status=True)


async def app_error(request: Request, exc: AppError) -> Response:
    return render_error(request, exc)


async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
    return render_error(request, AppError.for_status(exc.status_code, headers=exc.headers), bare_status=True)


async def validation_error(request: Request, exc: RequestValidationError) -> Response:
    """FastAPI's own 422 is English-only; answer in the reader's language, naming the fields."""
    fields = sorted({".".join(str(part) for part in error.get("loc", ())[1:]) or "body"
                     for error in exc.errors()})
    return render_error(request, AppError.for_status(422, {"fields": fields}), bare_status=True)


# The database does not answer (restarting, down, a connection cut): the request is answered 503 in the
# reader's language with Retry-After, never 500; the pool checks connections before use (app/core/db.py),
# so the first request after the database is back succeeds.
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)
RETRY_AFTER_SECONDS = "30"


async def database_unavailable(request: Request, exc: Exception) -> Response:
    log.error("database unavailable on %s: %s", request.url.path, str(exc).splitlines()[0][:200] if str(exc) else exc)
    return render_error(request, AppError.for_status(503, headers={"Retry-After": RETRY_AFTER_SECONDS}),
                        bare_status=True)


async def server_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, DATABASE_UNAVAILABLE):  # raised outside a route (a middleware's session lookup)
        return await database_unavailable(request, exc)
    log.exception("unhandled error on %s", request.url.path, exc_info=exc)
    return render_error(request, AppError.for_status(500), bare_status=True)
