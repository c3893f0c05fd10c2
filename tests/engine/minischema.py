"""A small JSON Schema checker for the subset result.schema.json uses (jsonschema is not a
dependency): type, enum, const, properties, required, additionalProperties, items, minItems,
maxItems, prefixItems, minimum, maximum, minLength, pattern, anyOf, $ref into #/$defs."""

from __future__ import annotations

import re
from typing import Any

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_KNOWN = {"type", "enum", "const", "properties", "required", "additionalProperties", "items",
          "minItems", "maxItems", "prefixItems", "minimum", "maximum", "minLength", "pattern", "anyOf", "$ref",
          "$schema", "$id", "title", "$defs", "description"}


def errors(instance: Any, schema: dict, root: dict | None = None, path: str = "$") -> list[str]:
    root = root or schema
    unknown = set(schema) - _KNOWN
    assert not unknown, f"minischema does not support {unknown}"
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), ref
        return errors(instance, root["$defs"][ref[len("#/$defs/"):]], root, path)
    out: list[str] = []
    if "anyOf" in schema:
        if all(errors(instance, s, root, path) for s in schema["anyOf"]):
            out.append(f"{path}: matches none of anyOf")
        return out
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](instance) for t in types):
            return [f"{path}: {instance!r} is not of type {types}"]
    if "const" in schema and instance != schema["const"]:
        out.append(f"{path}: {instance!r} != const {schema['const']!r}")
    if "enum" in schema and instance not in schema["enum"]:
        out.append(f"{path}: {instance!r} not in enum")
    if isinstance(instance, str):
        if "minLength" in schema and len(instance) < schema["minLength"]:
            out.append(f"{path}: too short")
        if "pattern" in schema and not re.search(schema["pattern"], instance):
            out.append(f"{path}: {instance!r} does not match {schema['pattern']}")
    if _TYPES["number"](instance):
        if "minimum" in schema and instance < schema["minimum"]:
            out.append(f"{path}: {instance} < minimum {schema['minimum']}")
        if "maximum" in schema and instance > schema["maximum"]:
            out.append(f"{path}: {instance} > maximum {schema['maximum']}")
    if isinstance(instance, list):
        if "minItems" in schema and len(instance) < schema["minItems"]:
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(instance) > schema["maxItems"]:
            out.append(f"{path}: more than {schema['maxItems']} items")
        for i, (item, sub) in enumerate(zip(instance, schema.get("prefixItems", []), strict=False)):
            out.extend(errors(item, sub, root, f"{path}[{i}]"))
        if "items" in schema:
            for i, item in enumerate(instance):
                out.extend(errors(item, schema["items"], root, f"{path}[{i}]"))
    if isinstance(instance, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in instance:
                out.append(f"{path}: missing required {key!r}")
        for key, value in instance.items():
            if key in props:
                out.extend(errors(value, props[key], root, f"{path}.{key}"))
            else:
                extra = schema.get("additionalProperties", True)
                if extra is False:
                    out.append(f"{path}: unexpected property {key!r}")
                elif isinstance(extra, dict):
                    out.extend(errors(value, extra, root, f"{path}.{key}"))
    return out
