"""Pages the LMS shows inside its iframe: the launch page, the Deep Linking picker and refusals.

The rest of the site forbids framing (app/core/headers.py). These pages carry their own policy: any
HTTPS page may frame them (an LMS's pages live on the school's own host, which we cannot list in
advance; plain http only from this machine, for a development LMS), and the Deep Linking answer may
post its form to the LMS. They hold no session and offer no action beyond their one-time link, so a
framing page gains nothing from them.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from fastapi.responses import Response

from app.core.headers import CONTENT_SECURITY_POLICY

FRAME_ANCESTORS = "frame-ancestors https: http://127.0.0.1:* http://localhost:*"


def policy(form_target: str | None = None) -> str:
    directives = []
    for directive in CONTENT_SECURITY_POLICY.split("; "):
        if directive.startswith("frame-ancestors"):
            directive = FRAME_ANCESTORS
        elif directive.startswith("form-action") and form_target:
            parts = urlsplit(form_target)
            directive = f"form-action 'self' {parts.scheme}://{parts.netloc}"
        directives.append(directive)
    return "; ".join(directives)


def allow_lms_frame(response: Response, form_target: str | None = None) -> Response:
    response.headers["content-security-policy"] = policy(form_target)
    return response
