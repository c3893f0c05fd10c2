"""Assignments: lessons to read and exercises to pass, an opening and a due time, the tier that counts
as complete and a late policy.

Times are stored as naive UTC. An instructor types them as wall-clock times in the class's zone
("Friday 23:59" in Asia/Seoul); ``parse_local`` turns that into UTC, and pages show the stored instant
in the reader's zone and the class's. The caller passes what the course holds (lesson slugs, and each
exercise's speed tiers in order), so this module never reads the catalog itself.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.classes.messages import ClassesError
from app.classes.models import LATE_POLICIES, Assignment, AssignmentItem, ClassMember, CourseClass
from app.core.clock import utcnow

PASSED = "passed"
MAX_ITEMS = 40
# The years an instructor may type (the API schema's LOCAL_TIME_PATTERN says the same). Every instant
# they give is shown in the reader's zone and the class's, up to 14 hours either way: a time near year 1
# or 9999 cannot be, and once stored it would break the class's every page.
FIRST_YEAR, LAST_YEAR = 1970, 2999


def parse_local(text: str | None, tz: str) -> dt.datetime:
    """A wall-clock time typed in zone ``tz`` ("2026-12-04T23:59", "2026-12-04 23:59"; an explicit offset
    or "Z" wins over the zone) -> naive UTC."""
    raw = (text or "").strip()
    if not raw or len(raw) > 40:
        raise ClassesError("bad_time", status=400)
    try:
        when = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ClassesError("bad_time", status=400) from None
    if not FIRST_YEAR <= when.year <= LAST_YEAR:
        raise ClassesError("bad_time", status=400)
    if when.tzinfo is None:
        when = when.replace(tzinfo=ZoneInfo(tz))
    return when.astimezone(dt.UTC).replace(tzinfo=None)


def in_zone(utc_naive: dt.datetime, tz: str) -> dt.datetime:
    """A stored (naive UTC) instant as an aware time in zone ``tz`` (UTC when the name is unknown)."""
    from app.core.clock import zone

    return utc_naive.replace(tzinfo=dt.UTC).astimezone(zone(tz))


def tier_order(tiers: Sequence[str]) -> list[str]:
    """The levels an exercise can reach, lowest first: passed, then its speed tiers in spec order."""
    return [PASSED, *tiers]


@dataclass
class AssignmentView:
    id: int
    class_id: int
    title: str
    opens_at: dt.datetime
    due_at: dt.datetime
    complete_tier: str
    late_policy: str
    lessons: list[str] = field(default_factory=list)
    exercises: list[str] = field(default_factory=list)

    def is_open(self, now: dt.datetime) -> bool:
        return self.opens_at <= now

    def is_due(self, now: dt.datetime) -> bool:
        return now > self.due_at


def _clean_items(lessons: Sequence[str], exercises: Sequence[str], known_lessons: Collection[str],
                 known_exercises: Mapping[str, Sequence[str]], complete_tier: str) -> list[tuple[str, str]]:
    items: list[tuple[str, str]] = []
    for kind, refs, known in (("lesson", lessons, known_lessons), ("exercise", exercises, known_exercises)):
        for ref in refs:
            ref = ref.strip()
            if not ref or (kind, ref) in items:
                continue
            if ref not in known:
                raise ClassesError(f"unknown_{kind}", {"ref": ref[:64]}, status=400)
            items.append((kind, ref))
    if not items:
        raise ClassesError("items_required", status=400)
    if len(items) > MAX_ITEMS:
        raise ClassesError("too_many_items", {"count": MAX_ITEMS}, status=400)
    if complete_tier != PASSED and not all(complete_tier in known_exercises[ref]
                                           for kind, ref in items if kind == "exercise"):
        raise ClassesError("bad_tier", status=400)
    return items


def create_assignment(db: Session, row: CourseClass, *, title: str, opens_at: dt.datetime, due_at: dt.datetime,
                      lessons: Sequence[str] = (), exercises: Sequence[str] = (), complete_tier: str = PASSED,
                      late_policy: str = "mark", known_lessons: Collection[str],
                      known_exercises: Mapping[str, Sequence[str]]) -> Assignment:
    """A new assignment of class ``row``; ``known_exercises`` maps each exercise id to its tier ids."""
    title = " ".join((title or "").split())
    if not title or len(title) > 120:
        raise ClassesError("title_required", status=400)
    if late_policy not in LATE_POLICIES:
        raise ClassesError("bad_late_policy", status=400)
    if due_at < opens_at:
        raise ClassesError("due_before_open", status=400)
    items = _clean_items(lessons, exercises, known_lessons, known_exercises, complete_tier or PASSED)
    assignment = Assignment(class_id=row.id, title=title, opens_at=opens_at, due_at=due_at,
                            complete_tier=complete_tier or PASSED, late_policy=late_policy, created_at=utcnow())
    db.add(assignment)
    db.flush()
    db.add_all(AssignmentItem(assignment_id=assignment.id, kind=kind, ref=ref, position=i)
               for i, (kind, ref) in enumerate(items))
    db.flush()
    return assignment


def delete_assignment(db: Session, class_id: int, assignment_id: int) -> None:
    row = db.scalar(select(Assignment).where(Assignment.id == assignment_id, Assignment.class_id == class_id))
    if row is None:
        raise ClassesError("not_found", status=404)
    db.delete(row)
    db.flush()


def _views(db: Session, rows: Sequence[Assignment]) -> list[AssignmentView]:
    views = {a.id: AssignmentView(a.id, a.class_id, a.title, a.opens_at, a.due_at, a.complete_tier, a.late_policy)
             for a in rows}
    if views:
        for item in db.scalars(select(AssignmentItem).where(AssignmentItem.assignment_id.in_(list(views)))
                               .order_by(AssignmentItem.position, AssignmentItem.id)):
            view = views[item.assignment_id]
            (view.lessons if item.kind == "lesson" else view.exercises).append(item.ref)
    return list(views.values())


def for_class(db: Session, class_id: int) -> list[AssignmentView]:
    """The class's assignments, soonest due first."""
    return _views(db, db.scalars(select(Assignment).where(Assignment.class_id == class_id)
                                 .order_by(Assignment.due_at, Assignment.id)).all())


def get(db: Session, class_id: int, assignment_id: int) -> AssignmentView:
    rows = db.scalars(select(Assignment).where(Assignment.id == assignment_id, Assignment.class_id == class_id)).all()
    if not rows:
        raise ClassesError("not_found", status=404)
    return _views(db, rows)[0]


def for_learner(db: Session, user_id: int, now: dt.datetime | None = None) -> list[tuple[CourseClass, AssignmentView]]:
    """The open assignments of every class ``user_id`` learns in, soonest due first (not yet open ones
    are left out: the instructor has not released them)."""
    now = now or utcnow()
    rows = db.execute(select(Assignment, CourseClass).join(CourseClass, CourseClass.id == Assignment.class_id)
                      .join(ClassMember, ClassMember.class_id == CourseClass.id)
                      .where(ClassMember.user_id == user_id, ClassMember.role == "learner", Assignment.opens_at <= now)
                      .order_by(Assignment.due_at, Assignment.id)).all()
    classes = {a.id: c for a, c in rows}
    return [(classes[v.id], v) for v in _views(db, [a for a, _c in rows])]
