"""Validate a Result's JSON against kernels/engine/result.schema.json with the jsonschema library
(the draft the schema names in its $schema), one readable line per violation."""
from __future__ import annotations

from typing import Any

from jsonschema.validators import validator_for


def errors(instance: Any, schema: dict) -> list[str]:
    """Every violation as "<keyword> at <path>: <message>"; an empty list when the instance is valid."""
    validator = validator_for(schema)(schema)
    return [f"{e.validator} at {e.json_path}: {e.message}" for e in validator.iter_errors(instance)]
