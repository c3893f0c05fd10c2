"""Limits of the comments and reports features, on app.state.comments (tests tune them).

Rate limits count rows in the database (comments written, reports sent) inside a time window,
so they hold across server processes and restarts, and deleting a comment does not refund it.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.clock import utcnow


@dataclass
class CommentsConfig:
    max_length: int = 4000
    page_size: int = 10  # top-level comments per page; their replies come along
    # (how many, per seconds): a burst limit and an hourly one
    comment_rates: list[tuple[int, int]] = field(default_factory=lambda: [(5, 60), (30, 3600)])
    comment_reports_per_hour: int = 20
    problem_reports: tuple[int, int] = (5, 600)  # per IP (hashed)
    problem_max_length: int = 2000
    quote_max_length: int = 1000
    report_reason_max: int = 1000


def wait_seconds(db: Session, column_time, where, rates: list[tuple[int, int]]) -> int:
    """0 when another action is allowed now, else whole seconds until the oldest counted one ages out."""
    now = utcnow()
    longest = 0
    for limit, seconds in rates:
        since = now - dt.timedelta(seconds=seconds)
        times = list(db.scalars(select(column_time).where(*where, column_time > since)
                                .order_by(column_time.desc()).limit(limit)))
        if len(times) >= limit:
            oldest = times[-1]
            longest = max(longest, int((oldest + dt.timedelta(seconds=seconds) - now).total_seconds()) + 1)
    return longest


def count_since(db: Session, column_time, where, seconds: int) -> int:
    since = utcnow() - dt.timedelta(seconds=seconds)
    return db.scalar(select(func.count()).where(*where, column_time > since)) or 0
