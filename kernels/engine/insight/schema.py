"""JSON Schema of a Result's ``insight`` section (``insight/1``), embedded in result.schema.json.

Versioned on its own: a new optional key keeps ``insight/1``; a renamed or re-meant one bumps it.
"""

from __future__ import annotations

from typing import Any

from .sass import CLASSES


def insight_schema() -> dict[str, Any]:
    nn_int = {"type": "integer", "minimum": 0}
    line = {"type": ["integer", "null"], "minimum": 1}
    str_or_null = {"type": ["string", "null"]}
    num_or_null = {"type": ["number", "null"]}
    counts = {"type": "object", "additionalProperties": nn_int}
    cls = {"anyOf": [{"enum": list(CLASSES)}, {"type": "null"}]}
    sass = {
        "type": "object",
        "properties": {
            "available": {"type": "boolean"}, "reason": str_or_null, "tool": str_or_null,
            "ms": {"type": "number", "minimum": 0},
            "instructions": {"type": "array", "items": {
                "type": "array", "prefixItems": [nn_int, line, {"type": "string"}, cls],
                "minItems": 4, "maxItems": 4}},
            "truncated": {"type": "boolean"},
            "functions": {"type": "array", "items": {"type": "string"}},
            "counts": counts, "global_load_widths": counts, "global_store_widths": counts,
            "by_line": {"type": "object", "additionalProperties": counts},
        },
        "required": ["available", "reason"],
        "additionalProperties": False,
    }
    ptx = {"type": "object", "properties": {
        "lines": {"type": "array", "items": {"type": "array", "prefixItems": [line, {"type": "string"}],
                                             "minItems": 2, "maxItems": 2}},
        "truncated": {"type": "boolean"}}, "required": ["lines", "truncated"], "additionalProperties": False}
    occupancy = {"type": "object", "properties": {
        "arch": {"type": "string"}, "threads_per_block": nn_int, "registers": nn_int, "shared_bytes": nn_int,
        "blocks_per_sm": nn_int, "warps_per_sm": nn_int, "max_warps_per_sm": nn_int,
        "occupancy": {"type": "number", "minimum": 0, "maximum": 1},
        "limited_by": {"type": "array", "items": {"enum": ["registers", "shared", "warps", "blocks"]}},
        "limits": counts,
        "next_step": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {
            "resource": {"enum": ["registers", "shared", "threads"]}, "change": nn_int, "blocks_per_sm": nn_int},
            "required": ["resource", "change", "blocks_per_sm"], "additionalProperties": False}]},
    }, "required": ["blocks_per_sm", "warps_per_sm", "max_warps_per_sm", "occupancy", "limited_by"],
        "additionalProperties": False}
    point = {"type": "object", "properties": {"kernel": {"type": "string"}, "gflops": {"type": "number"},
                                              "gbs": {"type": "number"}},
             "required": ["kernel", "gflops", "gbs"], "additionalProperties": False}
    roofline = {"type": "object", "properties": {
        "size": {"type": "object", "additionalProperties": nn_int},
        "flops": {"type": "number", "minimum": 0}, "min_bytes": {"type": "number", "minimum": 0},
        "intensity": {"type": "number", "minimum": 0}, "points": {"type": "array", "items": point},
        "ceilings": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {
            "file": str_or_null, "gpu": str_or_null, "dram_gbs": {"type": "number"},
            "fp32_gflops": {"type": "number"}, "tensor_gflops": num_or_null},
            "required": ["dram_gbs", "fp32_gflops"], "additionalProperties": False}]},
        "bound": {"enum": ["memory", "compute", None]},
        "attainable_gflops": num_or_null, "fraction": num_or_null,
    }, "required": ["intensity", "points", "ceilings"], "additionalProperties": False}
    hint = {"type": "object", "properties": {
        "id": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}, "params": {"type": "object"},
        "lesson": {"type": "object", "properties": {"folder": {"type": "string"},
                                                    "heading": {"type": "object"}},
                   "required": ["folder", "heading"]}},
        "required": ["id", "params", "lesson"], "additionalProperties": False}
    counters = {"type": "object", "properties": {
        "available": {"type": "boolean"}, "reason": str_or_null, "tool": str_or_null,
        "size": {"type": "object", "additionalProperties": nn_int},
        "metrics": {"type": "object", "additionalProperties": num_or_null},
        "raw": {"type": "object", "additionalProperties": num_or_null},
        "ms": {"type": "number", "minimum": 0}},
        "required": ["available", "reason"], "additionalProperties": False}
    return {
        "type": "object",
        "properties": {
            "version": {"type": "string", "pattern": "^insight/[0-9]+$"},
            "arch": {"type": "string"},
            "sass": sass, "ptx": ptx,
            "occupancy": {"anyOf": [occupancy, {"type": "null"}]},
            "roofline": {"anyOf": [roofline, {"type": "null"}]},
            "hints": {"type": "array", "items": hint},
            "counters": {"anyOf": [counters, {"type": "null"}]},
            "ms": {"type": "number", "minimum": 0},
        },
        "required": ["version", "sass", "ptx", "hints"],
        "additionalProperties": False,
    }
