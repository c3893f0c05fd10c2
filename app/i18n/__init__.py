"""UI strings through gettext catalogs (Babel). Source strings are English msgids.

Catalogs live in app/i18n/locales/<lang>/LC_MESSAGES/messages.{po,mo}. The .mo files are
committed so a fresh clone works with ``pip install -e .``; ``python -m app i18n compile``
rebuilds them and tests/web/test_i18n.py fails when a .po and its .mo disagree.

The site's languages are named here (app.core.config re-exports them for the settings' readers):
this package imports nothing of the app, so app.core (vocabulary, errors) builds on it.
"""
from __future__ import annotations

import gettext
from collections.abc import Callable
from functools import cache
from pathlib import Path

from app.i18n.qvalues import weighted

LANGUAGES = ("ko", "en")
LOCALES_DIR = Path(__file__).resolve().parent / "locales"
DOMAIN = "messages"
LANGUAGE_NAMES = {"ko": "한국어", "en": "English"}


@cache
def translations(lang: str) -> gettext.NullTranslations:
    if lang not in LANGUAGES:
        raise ValueError(f"unsupported language {lang!r}")
    return gettext.translation(DOMAIN, localedir=LOCALES_DIR, languages=[lang], fallback=lang == "en")


@cache
def gettext_for(lang: str) -> Callable[[str], str]:
    """The catalog's gettext; Korean strings settle their particles (을/를 …) when formatted."""
    if lang == "ko":
        from app.i18n.korean import korean_gettext

        return korean_gettext(translations(lang).gettext)
    return translations(lang).gettext


def ngettext_for(lang: str) -> Callable[[str, str, int], str]:
    return translations(lang).ngettext


def parse_accept_language(header: str | None) -> str | None:
    """The supported language the browser prefers most (q-values honoured), or None."""
    best: tuple[float, int, str] | None = None
    for position, (tag, q) in enumerate(weighted(header)):
        primary = tag.split("-")[0]
        if primary in LANGUAGES and q > 0:
            candidate = (-q, position, primary)
            if best is None or candidate < best:
                best = candidate
    return best[2] if best else None
