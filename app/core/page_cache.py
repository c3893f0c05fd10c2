"""Whole-page cache for the parts of a page that are the same for every reader.

A page is rendered once with a marker where the learner strip goes, split at the marker,
and kept as two encoded halves. A request then only adds its own strip (itself cached per
learner state, so every visitor shares one). An entry is valid while the catalog snapshot,
the measured-results version and the exercise spec it was built from are still current.

The whole page (halves and strip) compressed in a coding the browser accepts is kept with the
entry too, per (strip, coding), so a browser's request costs what an uncompressed one does
(app/core/encodings.py).
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import Response

from app.core import encodings

STRIP_MARKER = "<!--learner-strip-->"
MAX_VARIANTS = 8  # compressed copies kept per page: one per learner strip and coding seen lately
HTML = "text/html; charset=utf-8"


@dataclass
class CachedPage:
    deps: tuple[Any, ...]  # objects the page was built from, compared by identity/equality
    before: bytes
    after: bytes
    compressed: dict[tuple[bytes, str], bytes] = field(default_factory=dict, compare=False, repr=False)

    def encoded(self, strip: bytes, coding: str) -> bytes:
        """The page with ``strip``, compressed in ``coding``; compressed once, then kept."""
        key = (strip, coding)
        body = self.compressed.get(key)
        if body is None:
            body = encodings.compress(self.before + strip + self.after, coding)
            if len(self.compressed) >= MAX_VARIANTS:
                self.compressed.clear()  # many readers' strips: start over rather than grow
            self.compressed[key] = body
        return body


def page_response(page: CachedPage, strip: bytes, accept_encoding: str | None) -> Response:
    """The page as an HTML response, compressed from the cache when the browser accepts a coding."""
    coding = encodings.choose(accept_encoding)
    size = len(page.before) + len(strip) + len(page.after)
    if coding is None or size < encodings.MINIMUM_SIZE:
        # uncompressed: the compression middleware adds Vary (and gzip where it sees fit)
        return Response(page.before + strip + page.after, media_type=HTML)
    return Response(page.encoded(strip, coding), media_type=HTML,
                    headers={"Content-Encoding": coding, "Vary": "Accept-Encoding"})


class PageCache:
    def __init__(self, max_entries: int = 256, enabled: bool = True):
        # Disabled in debug mode, so template edits show up without a restart.
        self.enabled = enabled
        self._lock = threading.Lock()
        self._pages: dict[Any, CachedPage] = {}
        self._strips: dict[Any, bytes] = {}
        self.max_entries = max_entries

    def page(self, key: Any, deps: tuple[Any, ...], build: Callable[[], str]) -> CachedPage:
        cached = self._pages.get(key) if self.enabled else None
        if cached is not None and len(cached.deps) == len(deps) and all(a is b or a == b for a, b in zip(cached.deps, deps, strict=False)):
            return cached
        html = build()
        before, marker, after = html.partition(STRIP_MARKER)
        if not marker:
            before, after = html, ""
        cached = CachedPage(deps, before.encode(), after.encode())
        with self._lock:
            if len(self._pages) >= self.max_entries:
                self._pages.clear()  # stale versions pile up only when files change; start over
            self._pages[key] = cached
        return cached

    def strip(self, key: Any, build: Callable[[], str]) -> bytes:
        cached = self._strips.get(key) if self.enabled else None
        if cached is None:
            cached = build().encode()
            with self._lock:
                if len(self._strips) >= self.max_entries:
                    self._strips.clear()
                self._strips[key] = cached
        return cached
