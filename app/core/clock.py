"""Naive-UTC timestamps for the database (SQLite has no time zones; everything stored is UTC)."""
from __future__ import annotations

import datetime as dt


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)
