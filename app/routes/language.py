"""Choosing the language: URL prefix first, then the cookie, then Accept-Language, then ko."""
from __future__ import annotations

import re

from fastapi import Request
from fastapi.responses import RedirectResponse

from app.core.bodies import make_router
from app.core.config import LANGUAGES
from app.core.languages import reader_language
from app.core.services import services
from app.i18n.requests import COOKIE

COOKIE_MAX_AGE = 365 * 24 * 3600
_SAFE_NEXT = re.compile(r"^/(ko|en)(/[A-Za-z0-9\-_/]*)?$")

router = make_router()


@router.get("/", include_in_schema=False)
async def root(request: Request) -> RedirectResponse:
    lang = reader_language(request)
    response = RedirectResponse(f"/{lang}/", status_code=307)
    response.headers["Vary"] = "Cookie, Accept-Language"
    return response


@router.get("/language/{lang:lang}", include_in_schema=False)
async def switch_language(lang: str, request: Request, next: str = "") -> RedirectResponse:
    """Remember the choice in a cookie and go to the same page in that language."""
    if lang not in LANGUAGES:
        lang = services(request).settings.default_language
    target = f"/{lang}/"
    match = _SAFE_NEXT.match(next)
    if match:
        # Only local paths of our own shape: never an open redirect.
        target = f"/{lang}{match.group(2) or '/'}"
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(COOKIE, lang, max_age=COOKIE_MAX_AGE, samesite="lax", httponly=False)
    return response
