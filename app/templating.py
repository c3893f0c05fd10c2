"""Jinja2 environment and the context every page shares (language, gettext, URLs)."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from app.core import vocabulary
from app.core.config import LANGUAGES, PROJECT_ROOT
from app.core.filecache import FileCache
from app.i18n import LANGUAGE_NAMES, gettext_for, ngettext_for

TEMPLATES_DIR = PROJECT_ROOT / "templates"
STATIC_DIR = PROJECT_ROOT / "static"


class StaticVersions:
    """``/static/x?v=<hash of file>`` so browsers can cache assets and still see changes."""

    def __init__(self, root: Path):
        self.root = root
        self._digests: FileCache[str, str | None] = FileCache(lambda path: [self.root / path], self._digest)

    def _digest(self, path: str) -> str | None:
        try:
            return hashlib.sha256((self.root / path).read_bytes()).hexdigest()[:10]
        except OSError:  # absent: the URL goes without a version
            return None

    def url(self, path: str) -> str:
        digest = self._digests.get(path)
        return f"/static/{path}?v={digest}" if digest else f"/static/{path}"


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


def page_context(lang: str, path_in_lang: str, site_name: str) -> dict[str, Any]:
    """``path_in_lang`` is the page's path after the /{lang} prefix, e.g. '/lessons/x'."""
    return {
        "lang": lang,
        "other_lang": "en" if lang == "ko" else "ko",
        "_": gettext_for(lang),
        "ngettext": ngettext_for(lang),
        "site_name": site_name,
        "path_in_lang": path_in_lang,
    }
