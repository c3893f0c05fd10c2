"""Static files with caching headers that match how templates link them.

Templates link assets as ``/static/<path>?v=<content hash>`` (app/templating.py): the URL changes
whenever the file does, so a versioned URL may be kept for a year and never revalidated
(``immutable``). A bare ``/static/<path>`` (vendored docs pages, old links) is revalidated after
five minutes.
"""
from __future__ import annotations

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

VERSIONED = "public, max-age=31536000, immutable"
UNVERSIONED = "public, max-age=300"


class CachedStaticFiles(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            versioned = b"v=" in scope.get("query_string", b"")
            response.headers["Cache-Control"] = VERSIONED if versioned else UNVERSIONED
        return response
