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
from app.lessons.said import Said, _

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
        return Verdict("error", Said(_("empty link target")))
    titled = _TITLED.match(raw)
    url = titled.group(1) if titled else raw
    if re.search(r"\s", url):
        return Verdict("error", Said(_("link target %(target)s contains a space (write %%20, or fix the URL)"),
                                     target=repr(raw)))
    parts = urlsplit(url)
    if parts.scheme:
        if image:
            return Verdict("error", Said(_("image %(url)s is not a /static/ file: the site serves no third-party "
                                           "images"), url=url))
        if parts.scheme in ("https", "http"):
            if not parts.netloc or "." not in parts.netloc.split(":")[0] and parts.netloc.split(":")[0] != "localhost":
                return Verdict("error", Said(_("link %(url)s has no valid host"), url=url))
            if parts.scheme == "http":
                return Verdict("warning", Said(_("link %(url)s uses http: prefer https"), url=url))
            return None
        if parts.scheme == "mailto" and not external_only and "@" in parts.path:
            return None
        return Verdict("error", Said(_("link %(url)s has a bad scheme '%(scheme)s:' (use https://)"), url=url,
                                     scheme=parts.scheme))
    if external_only:
        return Verdict("error", Said(_("link %(url)s must be an absolute https:// URL"), url=url))
    if url.startswith("//"):
        return Verdict("error", Said(_("link %(url)s has no scheme (write https://)"), url=url))
    if url.startswith("#"):
        return None if len(url) > 1 and not image else Verdict("error", Said(_("link target %(target)s is not a page or file"),
                                                                                   target=repr(url)))
    if not url.startswith("/"):
        return Verdict("error", Said(_("relative link %(target)s: write /<lang>/lessons/<slug> or /static/<file>"),
                                     target=repr(url)))
    path = parts.path
    if path.startswith("/static/"):
        rel = path[len("/static/"):]
        root = static_dir.resolve()
        file = (root / rel).resolve()
        if ".." in rel.split("/") or root not in file.parents or not file.is_file():
            return Verdict("error", Said(_("%(path)s not found under static/"), path=path))
        return None
    if image:
        return Verdict("error", Said(_("image %(url)s is not a /static/ file"), url=url))
    page = _PAGE.match(path)
    if page and page.group("lang") in LANGUAGES:
        slug = page.group("slug")
        if page.group("page") is not None:
            return None if page.group("page") in SITE_PAGES else Verdict(
                "error", Said(_("unknown internal link %(url)s: site pages are %(pages)s"), url=url,
                              pages=", ".join(sorted(SITE_PAGES))))
        if slug is None:
            return None
        if slug not in slugs:
            return Verdict("error", Said(_("link %(url)s points at an unknown lesson '%(slug)s'"), url=url, slug=slug))
        if not slugs[slug]:
            return Verdict("warning", Said(_("link %(url)s points at a draft: learners get a 404 until it is "
                                               "published"), url=url))
        return None
    return Verdict("error", Said(_("unknown internal link %(url)s: use /<lang>/lessons/<slug>, /<lang>/ or "
                                 "/static/<file>"), url=url))
