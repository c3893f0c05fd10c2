"""What a link can open: a lesson, an exercise (the lesson that holds it) or one of the course class's
assignments (its first item). Names are stored with the link in the LMS as ``lesson:<slug>``,
``exercise:<id>`` or ``assignment:<id>``."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.classes import roster
from app.classes.models import Assignment, AssignmentItem
from app.core.ids import row_id
from app.lessons.catalog import Snapshot
from app.lti import courses
from app.lti.claims import parse_resource


@dataclass
class Choice:
    resource: str  # "lesson:<slug>", "exercise:<id>" or "assignment:<id>"
    title: str


@dataclass
class Course:
    """Where a link is opened from: the platform and the LMS course (its class holds the assignments)."""

    db: Session
    platform_id: int
    context_id: str | None

    def class_id(self) -> int | None:
        if self.context_id is None:
            return None
        row = roster.find_by_external_id(self.db, courses.external_id(self.platform_id, self.context_id))
        return row.id if row is not None else None

    def assignments(self) -> list[Assignment]:
        class_id = self.class_id()
        if class_id is None:
            return []
        return list(self.db.scalars(select(Assignment).where(Assignment.class_id == class_id).order_by(Assignment.id)))

    def first_item(self, assignment_id: str) -> tuple[str, str] | None:
        """The assignment's first lesson or exercise, when the assignment belongs to this course's class
        (a link can never open another class's assignment)."""
        number = row_id(assignment_id)
        row = self.db.get(Assignment, number) if number is not None else None
        if row is None or row.class_id != self.class_id():
            return None
        item = self.db.scalar(select(AssignmentItem).where(AssignmentItem.assignment_id == row.id)
                              .order_by(AssignmentItem.position, AssignmentItem.id).limit(1))
        return (item.kind, item.ref) if item is not None else None


def path_for(snapshot: Snapshot, resource: str | None, lang: str, course: Course) -> str | None:
    """Our page for ``resource`` in ``lang`` (the course index when none is named); None when the
    resource does not exist, is not published or is not this course's."""
    if resource is None:
        return f"/{lang}/"
    parsed = parse_resource(resource)
    if parsed is not None and parsed[0] == "assignment":
        parsed = course.first_item(parsed[1])
    if parsed is None:
        return None
    kind, ident = parsed
    lessons = snapshot.visible()
    if kind == "lesson":
        found = next((lesson for lesson in lessons if lesson.slug == ident), None)
    else:
        found = next((lesson for lesson in lessons if lesson.meta.exercise == ident), None)
    return f"/{lang}/lessons/{found.slug}" if found is not None else None


def choices(snapshot: Snapshot, lang: str, course: Course, assignment_label: str) -> list[Choice]:
    """The course class's assignments first, then every published lesson and every exercise under its
    lesson's title, in course order. ``assignment_label`` is "Assignment: %(title)s" in the reader's language."""
    found = [Choice(f"assignment:{a.id}", assignment_label % {"title": a.title}) for a in course.assignments()]
    for lesson in snapshot.visible():
        title = lesson.text(lang)[0].title
        found.append(Choice(f"lesson:{lesson.slug}", title))
        if lesson.meta.exercise:
            found.append(Choice(f"exercise:{lesson.meta.exercise}", f"{title} · {lesson.meta.exercise}"))
    return found
