"""Jinja2 environment and the context every page shares (language, gettext, URLs)."""
from __future__ import annotations

import hashlib
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from app.core import vocabulary
from app.core.config import LANGUAGES, PROJECT_ROOT
from app.i18n import LANGUAGE_NAMES, gettext_for, ngettext_for

TEMPLATES_DIR = PROJECT_ROOT / "templates"
STATIC_DIR = PROJECT_ROOT / "static"


class StaticVersions:
    """``/static/x?v=<hash of file>`` so browsers can cache assets and still see changes."""

    def __init__(self, root: Path):
        self.root = root
        self._cache: dict[str, tuple[int, str]] = {}

    def url(self, path: str) -> str:
        file = self.root / path
        try:
            mtime = file.stat().st_mtime_ns
        except OSError:
            return f"/static/{path}"
        cached = self._cache.get(path)
        if cached is None or cached[0] != mtime:
            digest = hashlib.sha256(file.read_bytes()).hexdigest()[:10]
            cached = self._cache[path] = (mtime, digest)
        return f"/static/{path}?v={cached[1]}"


def make_environment(auto_reload: bool) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES_DIR)),
        autoescape=select_autoescape(["html"]),
        auto_reload=auto_reload,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    versions = StaticVersions(STATIC_DIR)
    env.globals["static"] = versions.url
    env.globals["LANGUAGES"] = LANGUAGES
    env.globals["LANGUAGE_NAMES"] = LANGUAGE_NAMES
    env.globals["vocab"] = vocabulary  # labels of states, verdicts, codes, XP sources: {{ vocab.label(...) }}
    return env


def page_context(lang: str, path_in_lang: str, site_name: str) -> dict:
    """``path_in_lang`` is the page's path after the /{lang} prefix, e.g. '/lessons/x'."""
    return {
        "lang": lang,
        "other_lang": "en" if lang == "ko" else "ko",
        "_": gettext_for(lang),
        "ngettext": ngettext_for(lang),
        "site_name": site_name,
        "path_in_lang": path_in_lang,
    }
