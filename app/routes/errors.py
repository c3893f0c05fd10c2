"""Error answers in the reader's language — never a traceback, never raw English.

Pages get the error page; anything under /api/ gets JSON of the same shape the API's own
refusals use: ``{"error": code, "message": text in the reader's language, "params": {...}}``.
"""
from __future__ import annotations

import logging

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.i18n import gettext_for
from app.i18n.requests import preferred_language
from app.templating import page_context

log = logging.getLogger(__name__)


def _(text: str) -> str:  # marks msgids for extraction; translated per reader below
    return text


# Status → (code, message) for answers that carry no more specific text of their own.
STATUS_MESSAGES = {
    400: ("bad_request", _("The request could not be understood. Check what you entered and try again.")),
    401: ("auth_required", _("Please sign in first.")),
    403: ("forbidden", _("You do not have permission to do that.")),
    404: ("not_found", _("Not found.")),
    405: ("method_not_allowed", _("This address does not accept that kind of request.")),
    413: ("body_too_large", _("The request is too large.")),
    415: ("unsupported_media_type", _("This kind of content is not accepted here.")),
    422: ("invalid_request", _("Some fields are missing or have the wrong type. Check the form and try again.")),
    429: ("rate_limited", _("Too many requests. Please wait a moment and try again.")),
    500: ("server_error", _("Something went wrong on our side. The error has been logged.")),
}


def _reader_language(request: Request) -> str:
    return preferred_language(request, request.app.state.settings.default_language)


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _status_text(request: Request, status: int) -> tuple[str, str]:
    code, msgid = STATUS_MESSAGES.get(status, STATUS_MESSAGES[400 if status < 500 else 500])
    return code, gettext_for(_reader_language(request))(msgid)


def _api_error(request: Request, status: int, params: dict | None = None) -> JSONResponse:
    code, message = _status_text(request, status)
    return JSONResponse({"error": code, "message": message, "params": params or {}}, status_code=status)


def _error_page(request: Request, status: int) -> HTMLResponse:
    settings = request.app.state.settings
    lang = _reader_language(request)
    context = page_context(lang, "/", settings.site_name)
    context["status"] = status
    context["status_message"] = _status_text(request, status)[1]
    try:
        html = request.app.state.templates.get_template("error.html").render(context)
    except Exception:  # the error page itself must not fail
        log.exception("error template failed")
        html = f"<!doctype html><title>{status}</title><h1>{status}</h1>"
    return HTMLResponse(html, status_code=status)


def error_response(request: Request, status: int, params: dict | None = None):
    """The answer for ``status`` in the reader's language: JSON under /api/, the error page elsewhere."""
    return _api_error(request, status, params) if _is_api(request) else _error_page(request, status)


async def http_error(request: Request, exc: StarletteHTTPException):
    if _is_api(request):
        response = _api_error(request, exc.status_code)
    else:
        response = _error_page(request, exc.status_code)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def validation_error(request: Request, exc: RequestValidationError):
    """FastAPI's own 422 is English-only; answer in the reader's language, naming the fields."""
    fields = sorted({".".join(str(part) for part in error.get("loc", ())[1:]) or "body"
                     for error in exc.errors()})
    if _is_api(request):
        return _api_error(request, 422, {"fields": fields})
    return _error_page(request, 422)


async def server_error(request: Request, exc: Exception):
    log.exception("unhandled error on %s", request.url.path, exc_info=exc)
    if _is_api(request):
        return _api_error(request, 500)
    return _error_page(request, 500)
