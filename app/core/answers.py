"""Response models of the JSON API, and answers checked against them.

``Answer`` is the base of a response model that says exactly what a route returns: a key the model does
not name is an error (``additionalProperties: false`` in the schema), so the schema and the answer
cannot drift apart unseen. A route that picks its own status code or headers returns ``checked(...)``:
the content is validated against the route's model and sent as it is, key for key.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


def checked(model: type[BaseModel], content: Mapping[str, Any], *, status_code: int = 200,
            headers: Mapping[str, str] | None = None) -> JSONResponse:
    """``content`` as JSON once ``model`` accepts it as it is, no value converted (a mismatch is a bug
    in the route, raised here)."""
    model.model_validate(content, strict=True)
    return JSONResponse(dict(content), status_code=status_code, headers=headers)
