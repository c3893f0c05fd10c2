"""Find and judge the links of a lesson: markdown links and images in the body, and the
``links:`` of lesson.yaml.

A link target is one of
- an external page: ``https://host/...`` (``http://`` is accepted with a warning; ``mailto:`` too);
- an in-page anchor: ``#section``;
- a site page: ``/ko/`` or ``/en/``, ``/<lang>/lessons/<slug>`` (optionally ``#anchor``), ``/<lang>/ladder``;
- a static file: ``/static/<path>`` that exists under static/.
Anything else (an empty target, spaces, ``javascript:``, ``file:``, ``//host``, a relative
``foo.md``) is malformed. Images must be static files: the site serves no third-party images.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from markdown_it import MarkdownIt

from app.core.config import LANGUAGES

# [text](target) and ![alt](target); the text may hold escaped brackets. Malformed targets
# (spaces, empty) are found too: markdown-it would silently print them as plain text.
_LINK = re.compile(r"(!?)\[((?:\\.|[^\]\\])*)\]\(([^)]*)\)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_TITLED = re.compile(r'^(\S+)\s+"[^"]*"$')  # [text](url "title")
_PAGE = re.compile(r"^/(?P<lang>[a-z]{2})/(?:lessons/(?P<slug>[a-z0-9-]+)|(?P<page>[a-z-]+))?$")
# Site pages (besides lessons) that a lesson may link to, as /<lang>/<page>.
SITE_PAGES = frozenset({"ladder"})
_PARSER = MarkdownIt("commonmark").enable(["table"])


@dataclass(frozen=True)
class LinkRef:
    line: int  # 1-based file line
    target: str  # as written, between the parentheses
    image: bool


@dataclass(frozen=True)
class Verdict:
    severity: Literal["error", "warning"]
    message: str


def body_links(body: str, body_line: int) -> list[LinkRef]:
    """Every [..](..) and ![..](..) written in prose (code blocks and code spans excluded)."""
    refs = []
    for token in _PARSER.parse(body):
        if token.type != "inline" or not token.map:
            continue
        # Blank out code spans (keeping newlines and length) so `a[i](j)` is not a link.
        text = _CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), token.content)
        for match in _LINK.finditer(text):
            line = body_line + token.map[0] + text.count("\n", 0, match.start())
            refs.append(LinkRef(line, match.group(3), bool(match.group(1))))
    return refs


def judge(target: str, *, image: bool, static_dir: Path, slugs: dict[str, bool],
          external_only: bool = False) -> Verdict | None:
    """None when the target is fine. ``slugs`` maps each lesson slug to 'is published'."""
    raw = target.strip()
    if not raw:
        return Verdict("error", "empty link target")
    titled = _TITLED.match(raw)
    url = titled.group(1) if titled else raw
    if re.search(r"\s", url):
        return Verdict("error", f"link target {raw!r} contains a space (write %20, or fix the URL)")
    parts = urlsplit(url)
    if parts.scheme:
        if image:
            return Verdict("error", f"image {url} is not a /static/ file: the site serves no third-party images")
        if parts.scheme in ("https", "http"):
            if not parts.netloc or "." not in parts.netloc.split(":")[0] and parts.netloc.split(":")[0] != "localhost":
                return Verdict("error", f"link {url} has no valid host")
            if parts.scheme == "http":
                return Verdict("warning", f"link {url} uses http: prefer https")
            return None
        if parts.scheme == "mailto" and not external_only and "@" in parts.path:
            return None
        return Verdict("error", f"link {url} has a bad scheme '{parts.scheme}:' (use https://)")
    if external_only:
        return Verdict("error", f"link {url} must be an absolute https:// URL")
    if url.startswith("//"):
        return Verdict("error", f"link {url} has no scheme (write https://)")
    if url.startswith("#"):
        return None if len(url) > 1 and not image else Verdict("error", f"link target {url!r} is not a page or file")
    if not url.startswith("/"):
        return Verdict("error", f"relative link {url!r}: write /<lang>/lessons/<slug> or /static/<file>")
    path = parts.path
    if path.startswith("/static/"):
        rel = path[len("/static/"):]
        root = static_dir.resolve()
        file = (root / rel).resolve()
        if ".." in rel.split("/") or root not in file.parents or not file.is_file():
            return Verdict("error", f"{path} not found under static/")
        return None
    if image:
        return Verdict("error", f"image {url} is not a /static/ file")
    page = _PAGE.match(path)
    if page and page.group("lang") in LANGUAGES:
        slug = page.group("slug")
        if page.group("page") is not None:
            return None if page.group("page") in SITE_PAGES else Verdict(
                "error", f"unknown internal link {url}: site pages are {', '.join(sorted(SITE_PAGES))}")
        if slug is None:
            return None
        if slug not in slugs:
            return Verdict("error", f"link {url} points at an unknown lesson '{slug}'")
        if not slugs[slug]:
            return Verdict("warning", f"link {url} points at a draft: learners get a 404 until it is published")
        return None
    return Verdict("error", f"unknown internal link {url}: use /<lang>/lessons/<slug>, /<lang>/ or /static/<file>")
