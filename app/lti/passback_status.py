"""What the LMS gradebook was sent and when, per learner and assignment, for the course page."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.classes.models import Assignment
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
    out = []
    for score, title, username in rows:
        state = "sent" if score.sent_version >= score.version else ("retrying" if score.attempts else "pending")
        out.append(ScoreStatus(title, username, score.score, score.out_of, score.sent_score, score.sent_at, state,
                               score.last_error, score.next_try_at))
    return out
