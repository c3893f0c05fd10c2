"""The gradebook: one cell per learner × assignment.

For each exercise of an assignment: the best effective verdict (after graders' overrides), the best
level reached before the due time and after it, the number of attempts, the time of the first pass,
and whether it is complete (reached the assignment's tier) on time, late, or not at all. A lesson is
complete when the learner finished reading it. An item completed after the due time counts (marked
late) under the "mark" policy and does not count under "close".

Score = items complete, out of = items in the assignment (lessons and exercises alike): the two
numbers an LMS gradebook imports (CSV columns ``<assignment> [score]`` and ``<assignment> [out of]``).
"""
from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.classes.assignments import AssignmentView, tier_order
from app.classes.roster import RosterMember
from app.classes.work import NOT_PASSED, Attempt, attempts
from app.progress import events as ev
from app.progress.models import Event


@dataclass
class ExerciseCell:
    exercise: str
    verdict: str | None = None  # best effective verdict: PASSED if any passed, else the latest
    best_on_time: str | None = None  # level name ("passed", a tier id) reached by the due time
    best_late: str | None = None  # level name reached only after it
    attempts: int = 0
    first_pass_at: dt.datetime | None = None
    complete: bool = False
    late: bool = False


@dataclass
class LessonCell:
    lesson: str
    read_at: dt.datetime | None = None
    complete: bool = False
    late: bool = False


@dataclass
class Cell:
    assignment_id: int
    exercises: list[ExerciseCell] = field(default_factory=list)
    lessons: list[LessonCell] = field(default_factory=list)

    @property
    def score(self) -> int:
        return sum(c.complete for c in self.exercises) + sum(c.complete for c in self.lessons)

    @property
    def out_of(self) -> int:
        return len(self.exercises) + len(self.lessons)

    @property
    def late(self) -> bool:
        return any(c.late for c in self.exercises) or any(c.late for c in self.lessons)

    @property
    def left(self) -> list[tuple[str, str]]:
        """("lesson" | "exercise", ref) still to do."""
        return ([("lesson", c.lesson) for c in self.lessons if not c.complete]
                + [("exercise", c.exercise) for c in self.exercises if not c.complete])


@dataclass
class Row:
    user_id: int
    username: str
    email: str
    cells: list[Cell]


def exercise_cell(a: AssignmentView, exercise: str, mine: Sequence[Attempt], tiers: Sequence[str]) -> ExerciseCell:
    order = tier_order(tiers)
    cell = ExerciseCell(exercise, attempts=len(mine))
    on_time = max((t.level for t in mine if t.created_at <= a.due_at), default=NOT_PASSED)
    late = max((t.level for t in mine if t.created_at > a.due_at), default=NOT_PASSED)
    cell.best_on_time = order[on_time] if on_time >= 0 else None
    cell.best_late = order[late] if late > on_time else None
    passes = [t for t in mine if t.verdict == "PASSED"]
    cell.verdict = "PASSED" if passes else (mine[-1].verdict if mine else None)
    cell.first_pass_at = passes[0].created_at if passes else None
    needed = order.index(a.complete_tier) if a.complete_tier in order else 0
    if on_time >= needed:
        cell.complete = True
    elif late >= needed and a.late_policy == "mark":
        cell.complete = cell.late = True
    return cell


def lesson_cell(a: AssignmentView, lesson: str, read_at: dt.datetime | None) -> LessonCell:
    cell = LessonCell(lesson, read_at)
    if read_at is not None:
        if read_at <= a.due_at:
            cell.complete = True
        elif a.late_policy == "mark":
            cell.complete = cell.late = True
    return cell


def lessons_read(db: Session, user_ids: Sequence[int], slugs: Sequence[str]) -> dict[tuple[int, str], dt.datetime]:
    """(user, lesson) -> when they first finished reading it (in their current progress epoch)."""
    if not user_ids or not slugs:
        return {}
    rows = db.execute(select(Event.user_id, Event.subject, func.min(Event.occurred_at))
                      .join(User, (User.id == Event.user_id) & (User.progress_epoch == Event.epoch))
                      .where(Event.user_id.in_(list(user_ids)), Event.kind == ev.LESSON_COMPLETED,
                             Event.subject.in_(list(slugs))).group_by(Event.user_id, Event.subject))
    return {(u, s): when for u, s, when in rows}


def build(db: Session, learners: Sequence[RosterMember], assignments: Sequence[AssignmentView],
          tiers: Mapping[str, Sequence[str]]) -> list[Row]:
    """The gradebook of ``learners`` for ``assignments``; ``tiers`` maps exercise id -> its tier ids."""
    ids = [m.user_id for m in learners]
    exercises = {e for a in assignments for e in a.exercises}
    per: dict[tuple[int, str], list[Attempt]] = {}
    for t in attempts(db, ids, exercises, tiers):
        per.setdefault((t.user_id, t.exercise_id), []).append(t)
    read = lessons_read(db, ids, sorted({s for a in assignments for s in a.lessons}))
    rows = []
    for m in learners:
        cells = [Cell(a.id, [exercise_cell(a, e, per.get((m.user_id, e), []), tiers.get(e, ())) for e in a.exercises],
                      [lesson_cell(a, s, read.get((m.user_id, s))) for s in a.lessons]) for a in assignments]
        rows.append(Row(m.user_id, m.username, m.email, cells))
    return rows


def _csv_safe(value: str) -> str:
    """Spreadsheets run a cell that starts with = + - @ as a formula: quote it as text."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def to_csv(rows: Sequence[Row], assignments: Sequence[AssignmentView]) -> str:
    """username, email, then per assignment ``<title> [score]``, ``<title> [out of]`` and
    ``<title> [late]`` (yes/no): one line per learner, the shape LMS gradebooks import."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    head = ["username", "email"]
    for a in assignments:
        title = _csv_safe(a.title)
        head += [f"{title} [score]", f"{title} [out of]", f"{title} [late]"]
    writer.writerow(head)
    for row in rows:
        line: list[str | int] = [_csv_safe(row.username), _csv_safe(row.email)]
        for cell in row.cells:
            line += [cell.score, cell.out_of, "yes" if cell.late else "no"]
        writer.writerow(line)
    return buf.getvalue()
