"""The reader's language for a request, with the site's default (MKC_DEFAULT_LANGUAGE) as the last resort.

app.i18n knows the languages and how a request names one (app/i18n/requests.py); the site's default is a
setting, which app.i18n cannot read (app.core builds on it, not the reverse), so the two functions that
need it live here.
"""
from __future__ import annotations

from starlette.requests import Request

from app.core.services import services
from app.i18n import LANGUAGES
from app.i18n.requests import preferred_language


def reader_language(request: Request) -> str:
    """The URL prefix (/ko/, /en/), then the ``lang`` cookie, then Accept-Language, then the site's default."""
    return preferred_language(request, services(request).settings.default_language)


def api_lang(request: Request) -> str:
    """For /api/ routes: ``?lang=ko|en`` first, then ``reader_language``."""
    lang = request.query_params.get("lang")
    return lang if lang in LANGUAGES else reader_language(request)
