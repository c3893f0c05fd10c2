"""Naive-UTC timestamps for the database (SQLite has no time zones; everything stored is UTC), and a
reader's time zone by name."""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def zone(name: str | None) -> dt.tzinfo:
    """The IANA zone ``name`` (a learner's setting, for calendar days); UTC when empty or unknown."""
    try:
        return ZoneInfo(name) if name else dt.UTC
    except (ValueError, KeyError, OSError):
        return dt.UTC
