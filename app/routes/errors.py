"""404 and 500 pages in the visitor's language — never a traceback."""
from __future__ import annotations

import logging

from fastapi import Request
from fastapi.responses import HTMLResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.routes.language import preferred_language
from app.templating import page_context

log = logging.getLogger(__name__)


def _error_page(request: Request, status: int) -> HTMLResponse:
    settings = request.app.state.settings
    lang = preferred_language(request, settings.default_language)
    context = page_context(lang, "/", settings.site_name)
    context["status"] = status
    try:
        html = request.app.state.templates.get_template("error.html").render(context)
    except Exception:  # the error page itself must not fail
        log.exception("error template failed")
        html = f"<!doctype html><title>{status}</title><h1>{status}</h1>"
    return HTMLResponse(html, status_code=status)


async def http_error(request: Request, exc: StarletteHTTPException):
    if exc.status_code in (404, 405, 500):
        response = _error_page(request, exc.status_code)
    else:
        response = HTMLResponse(str(exc.detail), status_code=exc.status_code)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def server_error(request: Request, exc: Exception):
    log.exception("unhandled error on %s", request.url.path, exc_info=exc)
    return _error_page(request, 500)
