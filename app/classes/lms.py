"""What the class's LMS gradebook was sent, shown in our gradebook beside each score.

The LMS integration (app.lti) builds on classes, so classes cannot import it: create_app hands its
reader in as a service (``services(request).get(LmsGradebook)``). Without an LMS the reader finds
nothing and the gradebook shows no LMS line.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.classes.models import CourseClass


@dataclass(frozen=True)
class SentScore:
    """One learner's score on one assignment as the LMS should have it, and what it was last sent."""

    state: str  # sent | pending | retrying
    score: float
    out_of: float
    sent_score: float | None
    sent_at: dt.datetime | None
    next_try_at: dt.datetime | None


@dataclass(frozen=True)
class LmsLink:
    page: str  # our page for the LMS course (roster, every score sent), without the language prefix
    scores: Mapping[tuple[int, int], SentScore]  # by (user id, assignment id)


def _no_lms(db: Session, row: CourseClass) -> LmsLink | None:
    return None


@dataclass(frozen=True)
class LmsGradebook:
    """``read(db, class)``: the class's LMS course and its scores, or None when no LMS course is linked."""

    read: Callable[[Session, CourseClass], LmsLink | None] = _no_lms
