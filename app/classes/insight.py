"""Insight for instructors, per assignment: how many learners started and finished each exercise,
how many reached each tier, the most common failure codes (labelled through app/core/vocabulary.py by
the page, in the reader's language), the median attempts and time to a first pass, and who has not
started. Verdicts are the effective ones (a grader's override counts)."""
from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from app.classes.assignments import AssignmentView, tier_order
from app.classes.gradebook import lessons_read
from app.classes.roster import RosterMember
from app.classes.work import Attempt, attempts

TOP_CODES = 5


@dataclass
class ExerciseInsight:
    exercise: str
    started: int = 0
    passed: int = 0
    tiers: list[tuple[str, int]] = field(default_factory=list)  # (level, learners who reached it or higher)
    failure_codes: list[tuple[str, int]] = field(default_factory=list)  # (engine message code, attempts)
    median_attempts_to_pass: float | None = None
    median_minutes_to_pass: float | None = None


@dataclass
class AssignmentInsight:
    assignment_id: int
    learners: int
    not_started: list[str]
    exercises: list[ExerciseInsight]


def _failure_code(t: Attempt) -> str | None:
    """The engine's message code of a failed attempt (None for one a grader overrode: its code says
    why the engine judged otherwise)."""
    if t.verdict in (None, "PASSED") or t.result.get("verdict") != t.verdict:
        return None
    code = (t.result.get("message") or {}).get("code")
    return code if isinstance(code, str) else None


def exercise_insight(exercise: str, mine: Mapping[int, Sequence[Attempt]], tiers: Sequence[str]) -> ExerciseInsight:
    out = ExerciseInsight(exercise, started=sum(1 for a in mine.values() if a))
    order = tier_order(tiers)
    best = [max((t.level for t in a), default=-1) for a in mine.values() if a]
    out.tiers = [(level, sum(1 for b in best if b >= i)) for i, level in enumerate(order)]
    out.passed = out.tiers[0][1]
    codes: Counter[str] = Counter(c for a in mine.values() for t in a if (c := _failure_code(t)))
    out.failure_codes = codes.most_common(TOP_CODES)
    tries, minutes = [], []
    for a in mine.values():
        first = next((i for i, t in enumerate(a) if t.verdict == "PASSED"), None)
        if first is not None:
            tries.append(first + 1)
            minutes.append((a[first].created_at - a[0].created_at).total_seconds() / 60)
    if tries:
        out.median_attempts_to_pass = float(statistics.median(tries))
        out.median_minutes_to_pass = round(float(statistics.median(minutes)), 1)
    return out


def assignment_insight(db: Session, learners: Sequence[RosterMember], assignment: AssignmentView,
                       tiers: Mapping[str, Sequence[str]]) -> AssignmentInsight:
    ids = [m.user_id for m in learners]
    per: dict[str, dict[int, list[Attempt]]] = {e: {} for e in assignment.exercises}
    for t in attempts(db, ids, assignment.exercises, tiers, with_result=True):
        per[t.exercise_id].setdefault(t.user_id, []).append(t)
    read = lessons_read(db, ids, assignment.lessons)
    active = {u for e in per.values() for u in e} | {u for u, _slug in read}
    return AssignmentInsight(assignment.id, len(ids), sorted(m.username for m in learners if m.user_id not in active),
                             [exercise_insight(e, per[e], tiers.get(e, ())) for e in assignment.exercises])
