"""What the LMS gradebook was sent and when, per learner and assignment: for the LMS course page, and for
the class gradebook through the ``LmsGradebook`` service (app.classes.lms)."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.classes.lms import LmsLink, SentScore
from app.classes.models import Assignment, CourseClass
from app.lti import courses
from app.lti.models import LtiScore


@dataclass
class ScoreStatus:
    assignment: str
    username: str
    score: float
    out_of: float
    sent_score: float | None
    sent_at: dt.datetime | None
    state: str  # sent | pending | retrying
    last_error: str
    next_try_at: dt.datetime


def for_course(db: Session, context_id: int) -> list[ScoreStatus]:
    rows = db.execute(select(LtiScore, Assignment.title, User.username)
                      .join(Assignment, Assignment.id == LtiScore.assignment_id)
                      .join(User, User.id == LtiScore.user_id)
                      .where(LtiScore.context_id == context_id)
                      .order_by(Assignment.id, User.username_key))
    return [ScoreStatus(title, username, score.score, score.out_of, score.sent_score, score.sent_at, _state(score),
                        score.last_error, score.next_try_at) for score, title, username in rows]


def for_class(db: Session, row: CourseClass) -> LmsLink | None:
    """The class's LMS course page and each learner's score as sent, or None for a class made on the site."""
    context = courses.context_of_class(db, row)
    if context is None:
        return None
    scores: dict[tuple[int, int], SentScore] = {}
    for s in db.scalars(select(LtiScore).where(LtiScore.context_id == context.id)):
        state = _state(s)
        scores[(s.user_id, s.assignment_id)] = SentScore(state, s.score, s.out_of, s.sent_score, s.sent_at,
                                                         s.next_try_at if state == "retrying" else None)
    return LmsLink(page=f"/lti/courses/{context.id}", scores=scores)


def _state(score: LtiScore) -> str:
    return "sent" if score.sent_version >= score.version else ("retrying" if score.attempts else "pending")
