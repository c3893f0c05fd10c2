"""The reader's language from a request: one place for every route (issue 18 item 3).

- ``preferred_language``: the URL prefix (/ko/, /en/), then the ``lang`` cookie, then Accept-Language,
  then the site's default.
- ``api_lang``: for /api/ routes, ``?lang=ko|en`` first, then ``preferred_language``.
- ``Lang``: a page route's ``{lang}`` path segment, declared as ``lang: Lang``: FastAPI checks it before
  the route runs, answering 404 (not its 422) when the site has no such language.
"""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from app.i18n import LANGUAGES, parse_accept_language

COOKIE = "lang"


def preferred_language(request: Request, default: str) -> str:
    first = request.url.path.strip("/").split("/", 1)[0]
    if first in LANGUAGES:
        return first
    cookie = request.cookies.get(COOKIE)
    if cookie in LANGUAGES:
        return cookie
    return parse_accept_language(request.headers.get("accept-language")) or default


def api_lang(request: Request) -> str:
    lang = request.query_params.get("lang")
    return lang if lang in LANGUAGES else preferred_language(request, request.app.state.settings.default_language)


async def path_lang(lang: str) -> str:
    """The ``{lang}`` path parameter, when the site speaks it; an unknown language is no page: 404."""
    if lang not in LANGUAGES:
        raise HTTPException(status_code=404)
    return lang


Lang = Annotated[str, Depends(path_lang)]
