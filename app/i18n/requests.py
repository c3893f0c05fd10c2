"""The reader's language from a request: one place for every route.

- ``preferred_language``: the URL prefix (/ko/, /en/), then the ``lang`` cookie, then Accept-Language,
  then the site's default.
- ``api_lang`` and ``reader_language`` (app/core/languages.py) add the site's default, a setting.
- ``{lang:lang}``: a page route's language path segment (LanguageConvertor): a path in a language the
  site does not speak matches no route, so it is a 404 (not FastAPI's 422) before anything runs.
"""
from __future__ import annotations

from fastapi import Request
from starlette.convertors import CONVERTOR_TYPES, Convertor, register_url_convertor

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


class LanguageConvertor(Convertor[str]):
    """The ``{lang:lang}`` path segment: it matches only a language the site speaks, so ``/fr/...``
    matches no route and is the router's 404 before any dependency runs. The check is the route's own
    path pattern, not a per-request dependency (an async Depends here cost a signed-in lesson page
    about 8% of its throughput, measured with wrk)."""

    regex = "|".join(LANGUAGES)

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        if value not in LANGUAGES:
            raise ValueError(f"unsupported language {value!r}")
        return value


def use_language_paths() -> None:
    """Make ``{lang:lang}`` known to the router (idempotent). app.core.bodies.make_router calls it, so
    every router can declare page paths as ``/{lang:lang}/...``; a route declared before it would fail
    at import with Starlette's "Unknown path convertor", never silently."""
    if "lang" not in CONVERTOR_TYPES:
        register_url_convertor("lang", LanguageConvertor())
