"""Limits of the comments and reports features, one of the app's services (built from the settings; tests tune its fields).

Rate limits take slots in the database (app/accounts/ratelimit.py) in the same transaction as the
comment or report they allow: atomic under parallel requests, shared by every server process, kept
across restarts, and deleting a comment does not refund it.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.accounts import ratelimit
from app.accounts.ratelimit import Rate
from app.core.config import Settings


@dataclass
class CommentsConfig:
    """From the settings (MKC_COMMENT_*, MKC_PROBLEM_*: app/core/config.py, README's table)."""

    max_length: int
    page_size: int  # top-level comments per page; their replies come along
    # (how many, per seconds): a burst limit and an hourly one
    comment_rates: list[tuple[int, int]]
    comment_reports_per_hour: int
    problem_reports: tuple[int, int]  # per IP (hashed)
    problem_max_length: int
    quote_max_length: int
    report_reason_max: int

    @classmethod
    def from_settings(cls, settings: Settings) -> CommentsConfig:
        problem = Rate.parse(settings.problem_report_limit)
        return cls(max_length=settings.comment_max_length, page_size=settings.comment_page_size,
                   comment_rates=[(r.limit, int(r.window)) for r in Rate.parse_all(settings.comment_limits)],
                   comment_reports_per_hour=settings.comment_reports_per_hour,
                   problem_reports=(problem.limit, int(problem.window)),
                   problem_max_length=settings.problem_max_length,
                   quote_max_length=settings.problem_quote_max_length,
                   report_reason_max=settings.comment_report_reason_max_length)


def take(db: Session, name: str, subject: str, rates: list[tuple[int, int]]) -> int:
    """0 when the action took its place in every (how many, per seconds) limit, else whole seconds to wait."""
    return ratelimit.take(db, [(name, subject, Rate(limit, seconds)) for limit, seconds in rates]).wait
