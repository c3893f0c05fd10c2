"""Strict JSON request bodies: one decoder for every route, so no JSON input can cause a 500.

``json.loads`` alone accepts three things that later fail far from the request:
- nesting deep enough to exhaust the recursion limit (``[[[[…`` 50,000 deep → RecursionError);
- lone UTF-16 surrogates written as escapes (``"\\ud800"``): a valid JSON string that Python holds as a
  ``str`` no UTF-8 encoder accepts, so the first database write or template render raises;
- invalid UTF-8 in the bytes themselves, and NUL characters (``"\\u0000"``), which PostgreSQL text refuses.
``loads_strict`` refuses all three with ``JsonBodyError`` (a ValueError), before any route sees the data.
"""
from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32  # our bodies nest 3 deep at most; 32 leaves room and stays far from the recursion limit


class JsonBodyError(ValueError):
    def __init__(self, code: str):
        super().__init__(code)
        self.code = code  # "invalid_json" | "too_deep" | "bad_text"


def _max_depth_exceeded(text: str, limit: int) -> bool:
    """Scan brackets outside strings without recursion (the parser's own recursion is what we avoid)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def bad_text(value: str) -> bool:
    """A NUL (PostgreSQL text cannot hold it) or a lone surrogate (no UTF-8 encoder accepts it)."""
    if "\x00" in value:
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _check_text(data: Any) -> None:
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if bad_text(item):
                raise JsonBodyError("bad_text")
        elif isinstance(item, dict):
            for key, value in item.items():
                if bad_text(key):
                    raise JsonBodyError("bad_text")
                stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)


def loads_strict(raw: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise JsonBodyError("bad_text") from None
    if _max_depth_exceeded(text, max_depth):
        raise JsonBodyError("too_deep")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise JsonBodyError("invalid_json") from None
    _check_text(data)
    return data
