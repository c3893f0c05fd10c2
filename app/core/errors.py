"""One error type for every refusal (issue 18 item 3): ``AppError(code, params, status)``.

A feature raises ``AppError`` (or a subclass whose only addition is its message table, e.g.
``CommentsError``); app/routes/errors.py renders every one of them, once as JSON for ``/api/``
(``{"error": code, "message": text in the reader's language, "params": {...}}``) and once as a page.

The text of a code comes from the raising feature's table (``messages``), else from the shared
table here (codes every feature uses: ``auth_required``, ``forbidden``, ``not_found`` ...), else from
the text of the HTTP status. Tables hold English msgids marked with ``_`` for extraction
(app/i18n/tools.py); they are translated when rendered, in the reader's language.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app.i18n import gettext_for


def _(text: str) -> str:  # marks msgids for extraction; translated per reader when rendered
    return text


# Codes shared by every feature, and the text of a status that carries nothing more specific.
MESSAGES: dict[str, str] = {
    "bad_request": _("The request could not be understood. Check what you entered and try again."),
    "auth_required": _("Please sign in first."),
    "forbidden": _("You do not have permission to do that."),
    "not_found": _("Not found."),
    "method_not_allowed": _("This address does not accept that kind of request."),
    "body_too_large": _("The request is too large."),
    "unsupported_media_type": _("This kind of content is not accepted here."),
    "invalid_request": _("Some fields are missing or have the wrong type. Check the form and try again."),
    "rate_limited": _("Too many requests. Please wait a moment and try again."),
    "server_error": _("Something went wrong on our side. The error has been logged."),
    "unavailable": _("The site cannot reach its database right now. Nothing you sent was lost; please try again "
                     "in a minute."),
}

# HTTP status -> the code of an answer that has no code of its own (an HTTPException, FastAPI's 422).
STATUS_CODES: dict[int, str] = {
    400: "bad_request", 401: "auth_required", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
    413: "body_too_large", 415: "unsupported_media_type", 422: "invalid_request", 429: "rate_limited",
    500: "server_error", 503: "unavailable",
}


def status_code(status: int) -> str:
    """The shared code for an HTTP status (400's or 500's for a status without one)."""
    return STATUS_CODES.get(status) or STATUS_CODES[400 if status < 500 else 500]


def fill(text: str, params: Mapping[str, Any] | None) -> str:
    """``text % params``; a text whose placeholders the params do not fill is returned unfilled."""
    if params:
        try:
            return text % params
        except (KeyError, TypeError, ValueError):
            return text
    return text


def translate(table: Mapping[str, str], code: str, lang: str, params: Mapping[str, Any] | None = None) -> str:
    """``table[code]`` in ``lang`` with ``params`` filled in (the code itself when the table lacks it)."""
    msgid = table.get(code)
    return fill(gettext_for(lang)(msgid), params) if msgid is not None else code


class AppError(Exception):
    """A refused request: a stable ``code``, the ``params`` its text names, the HTTP ``status``, and
    extra response ``headers`` (Retry-After, WWW-Authenticate)."""

    messages: ClassVar[Mapping[str, str]] = MESSAGES  # a feature's subclass names its own table

    def __init__(self, code: str, params: Mapping[str, Any] | None = None, status: int = 400,
                 headers: Mapping[str, str] | None = None) -> None:
        super().__init__(code)
        self.code, self.status = code, status
        self.params: dict[str, Any] = dict(params or {})
        self.headers: dict[str, str] = dict(headers or {})

    @classmethod
    def for_status(cls, status: int, params: Mapping[str, Any] | None = None,
                   headers: Mapping[str, str] | None = None) -> AppError:
        """The refusal for a bare HTTP status (an HTTPException, a body refused early)."""
        return AppError(status_code(status), params, status, headers)

    def message(self, lang: str) -> str:
        """The text for the reader: the code in the feature's table, else in the shared one, else the
        status's text (the feature's own wording of it first)."""
        fallback = status_code(self.status)
        msgid = (self.messages.get(self.code) or MESSAGES.get(self.code)
                 or self.messages.get(fallback) or MESSAGES[fallback])
        return fill(gettext_for(lang)(msgid), self.params)
