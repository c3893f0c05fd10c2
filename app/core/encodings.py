"""Content codings for cached pages: which one a browser accepts, and the bytes in it.

A cached page is compressed once per coding and kept with the page (app/core/page_cache.py), not
again on every request: compressing a 66 KB lesson per request cut a browser's rate to a tenth of
what an uncompressed client got. Brotli (Google's ``brotli`` package) is preferred where accepted:
smaller than gzip at the same cost at quality 5; gzip (the standard library) otherwise."""
from __future__ import annotations

import gzip

import brotli

from app.i18n.qvalues import weighted

GZIP_LEVEL = 6
BROTLI_QUALITY = 5  # past 5 brotli gets slower fast (6: ~5x, 11: ~100x) for a few percent less
MINIMUM_SIZE = 1000  # smaller bodies go as they are, as Starlette's GZipMiddleware does
PREFERENCE = ("br", "gzip")


def choose(accept_encoding: str | None) -> str | None:
    """The coding to answer in ("br", "gzip") or None for identity, from an Accept-Encoding header.

    Each listed coding with a q-value above 0 is acceptable (RFC 9110 §12.5.3; ``*`` stands for any
    coding not listed); among the acceptable ones the highest q wins, then our preference."""
    weights = dict(weighted(accept_encoding))
    star = weights.get("*", 0.0)
    best, best_q = None, 0.0
    for coding in PREFERENCE:
        q = weights.get(coding, star)
        if q > best_q:
            best, best_q = coding, q
    return best


def compress(body: bytes, coding: str) -> bytes:
    if coding == "br":
        return bytes(brotli.compress(body, quality=BROTLI_QUALITY))
    return gzip.compress(body, GZIP_LEVEL, mtime=0)
