"""The OpenAPI schema at /openapi.json: the JSON API (``/api/``) as it really answers.

- Only the API: HTML pages are not an API (and their GET+HEAD routes gave duplicate operation ids).
- Every operation documents its refusals: any 4xx is ``{"error", "message", "params"}`` in the reader's
  language (every ``AppError`` and HTTP error, rendered by app/routes/errors.py), not FastAPI's
  ``HTTPValidationError``, which our handlers never send. tests/hardening/test_api_fuzz.py holds
  responses to this schema.
"""
from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, routing
from fastapi.openapi.utils import get_openapi
from fastapi.responses import Response


class CSVResponse(Response):
    """``response_class=CSVResponse`` documents a route's answer as CSV (the route builds its own)."""

    media_type = "text/csv"


class EventStreamResponse(Response):
    """``response_class=EventStreamResponse`` documents a route's answer as server-sent events."""

    media_type = "text/event-stream"


ERROR_SCHEMA = {
    "type": "object",
    "required": ["error", "message", "params"],
    "properties": {
        "error": {"type": "string", "description": "a stable code, e.g. rate_limited"},
        "message": {"type": "string", "description": "the sentence for the reader, in their language"},
        "params": {"type": "object", "description": "values named in the message"},
    },
}
ERROR_RESPONSE = {
    "description": "Refused: a code and a message in the reader's language",
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
}


def _hoist_body_defs(operation: dict[str, Any], components: dict[str, Any]) -> None:
    """A request body described by hand (``openapi_extra``) carries the models it names in ``$defs``,
    with refs written as ``#/components/schemas/...``: the models move to the components, where those
    refs (and the tools reading them, from the document's root) find them."""
    for media in operation.get("requestBody", {}).get("content", {}).values():
        body = media.get("schema")
        if isinstance(body, dict) and "$defs" in body:
            components.update(body.pop("$defs"))
            media["schema"] = json.loads(json.dumps(body).replace('"#/$defs/', '"#/components/schemas/'))


def api_schema(app: FastAPI) -> dict[str, Any]:
    routes = [c for c in routing.iter_route_contexts(app.routes) if getattr(c, "path_format", "").startswith("/api/")]
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=routes)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["Error"] = ERROR_SCHEMA
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    for item in schema.get("paths", {}).values():
        for operation in item.values():
            _hoist_body_defs(operation, components)
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            responses["4XX"] = ERROR_RESPONSE
    return schema


def install(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = api_schema(app)
        return app.openapi_schema

    # FastAPI's documented way to customise the schema: replace the app's openapi method
    app.openapi = openapi  # type: ignore[method-assign]
