"""Learners' graded work as the gradebook, the leaderboards and the insight pages read it: every
finished submission with its effective verdict (a grader's latest override wins,
app/submissions/reviews.py) and the level it reached (passed, then each speed tier in spec order).

A submission counts at the time it was stored (``created_at``), not when it was graded: a kernel sent
before the due time that waited in the queue past it is on time.
"""
from __future__ import annotations

import datetime as dt
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.submissions.models import Submission
from app.submissions.reviews import effective_verdict, reviews_for

NOT_PASSED = -1
# The speedup a leaderboard ranks by: against the exercise's tiled reference, else its naive one.
RANKED_AGAINST = ("tiled", "naive")


@dataclass
class Attempt:
    id: int
    user_id: int
    exercise_id: str
    created_at: dt.datetime
    verdict: str | None  # effective
    level: int  # NOT_PASSED, 0 = passed, k = the k-th speed tier met
    result: dict[str, Any]


def parse_result(raw: str | None) -> dict[str, Any]:
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def level_of(verdict: str | None, result: Mapping[str, Any], tiers: Sequence[str]) -> int:
    """NOT_PASSED unless the effective verdict is PASSED; then 0 plus the highest tier met."""
    if verdict != "PASSED":
        return NOT_PASSED
    met = {t.get("id") for t in result.get("tiers") or [] if isinstance(t, dict) and t.get("met")}
    return max((i + 1 for i, tier in enumerate(tiers) if tier in met), default=0)


def ranked_speedup(result: Mapping[str, Any]) -> dict[str, Any] | None:
    """The speedup at the largest timing size against the first of RANKED_AGAINST the result has."""
    rows = [s for s in result.get("speedups") or [] if isinstance(s, dict)]
    for against in RANKED_AGAINST:
        mine = [s for s in rows if s.get("against") == against and isinstance(s.get("ci_low"), int | float)]
        if mine:
            return max(mine, key=lambda s: _size(s.get("size")))
    return None


def _size(size: Any) -> int:
    total = 1
    for value in (size or {}).values() if isinstance(size, dict) else ():
        total *= int(value) if isinstance(value, int) else 1
    return total


def attempts(db: Session, user_ids: Collection[int] | None, exercise_ids: Collection[str],
             tiers: Mapping[str, Sequence[str]], *, with_result: bool = False) -> list[Attempt]:
    """Every finished submission of ``user_ids`` (None: everyone) for ``exercise_ids``, oldest first."""
    if not exercise_ids or (user_ids is not None and not user_ids):
        return []
    query = (select(Submission).where(Submission.exercise_id.in_(list(exercise_ids)), Submission.state == "done")
             .order_by(Submission.created_at, Submission.id))
    if user_ids is not None:
        query = query.where(Submission.user_id.in_(list(user_ids)))
    rows = db.scalars(query).all()
    trail = reviews_for(db, [r.id for r in rows])
    out = []
    for row in rows:
        verdict = effective_verdict(row, trail[row.id])
        result = parse_result(row.result)
        out.append(Attempt(row.id, row.user_id, row.exercise_id, row.created_at, verdict,
                           level_of(verdict, result, tiers.get(row.exercise_id, ())), result if with_result else {}))
    return out


@dataclass
class WorkRow:
    id: int
    username: str
    exercise_id: str
    created_at: dt.datetime
    state: str
    verdict: str | None  # effective
    overridden: bool
    speedup_low: float | None
    source: str


def recent_work(db: Session, user_ids: Collection[int], *, limit: int = 200) -> list[WorkRow]:
    """The latest submissions of ``user_ids`` (a class's learners), newest first: what a grader
    assigned to the class reads."""
    from app.accounts.models import User

    if not user_ids:
        return []
    rows = db.execute(select(Submission, User.username).join(User, User.id == Submission.user_id)
                      .where(Submission.user_id.in_(list(user_ids)))
                      .order_by(Submission.created_at.desc(), Submission.id.desc()).limit(limit)).all()
    trail = reviews_for(db, [s.id for s, _name in rows])
    out = []
    for sub, name in rows:
        speed = ranked_speedup(parse_result(sub.result))
        out.append(WorkRow(sub.id, name, sub.exercise_id, sub.created_at, sub.state,
                           effective_verdict(sub, trail[sub.id]) if sub.state == "done" else None,
                           any(r.kind == "override" for r in trail[sub.id]),
                           float(speed["ci_low"]) if speed else None, sub.source))
    return out
