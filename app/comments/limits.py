"""Limits of the comments and reports features, on app.state.comments (tests tune them).

Rate limits take slots in the database (app/accounts/ratelimit.py) in the same transaction as the
comment or report they allow: atomic under parallel requests, shared by every server process, kept
across restarts, and deleting a comment does not refund it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from app.accounts import ratelimit
from app.accounts.ratelimit import Rate


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


def take(db: Session, name: str, subject: str, rates: list[tuple[int, int]]) -> int:
    """0 when the action took its place in every (how many, per seconds) limit, else whole seconds to wait."""
    return ratelimit.take(db, [(name, subject, Rate(limit, seconds)) for limit, seconds in rates]).wait
