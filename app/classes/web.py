"""What the classes' API and pages share: the caller's access to a class (one check, from the
permission table), and the course's lessons and exercises as assignments name them."""
from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import Request
from sqlalchemy.orm import Session

from app.accounts.auth import Auth
from app.accounts.models import User
from app.classes import roster
from app.classes.messages import ClassesError
from app.classes.models import CourseClass
from app.classes.permissions import class_can
from app.core import vocabulary
from app.core.services import services
from app.lessons.catalog import Catalog
from app.lessons.exercises import ExerciseInfoCache


@dataclass
class Access:
    row: CourseClass
    role: str | None  # the caller's role in the class (None: an admin who is not on its roster)
    user: User

    def can(self, permission: str) -> bool:
        return class_can(self.user.role, self.role, permission)


def class_access(db: Session, auth: Auth | None, class_id: int, permission: str) -> Access:
    """The class and the caller's role in it: 404 for no such class, 401 signed out, 403 without
    ``permission`` (app/classes/permissions.py)."""
    row = db.get(CourseClass, class_id)
    if row is None:
        raise ClassesError("not_found", status=404)
    if auth is None:
        raise ClassesError("auth_required", status=401)
    access = Access(row, roster.member_role(db, class_id, auth.user.id), auth.user)
    if not access.can(permission):
        raise ClassesError("forbidden", status=403)
    return access


@dataclass
class Course:
    """The published course as assignments see it, in one language."""

    lessons: dict[str, str] = field(default_factory=dict)  # slug -> "NN · title"
    exercises: dict[str, str] = field(default_factory=dict)  # id -> title
    tiers: dict[str, list[str]] = field(default_factory=dict)  # exercise id -> its tier ids, in order
    exercise_page: dict[str, str] = field(default_factory=dict)  # exercise id -> slug of the lesson with its panel
    # "passed" or a tier id -> it in words ("1.05× faster than Naive reference"): a tier's id is a key for
    # specs and exports, not something an instructor choosing a level or reading the gradebook should decode
    level_words: dict[str, str] = field(default_factory=dict)

    def lesson_title(self, slug: str) -> str:
        return self.lessons.get(slug, slug)

    def exercise_title(self, exercise_id: str) -> str:
        return self.exercises.get(exercise_id, exercise_id)

    def level_label(self, level: str) -> str:
        return self.level_words.get(level, level)


def course(request: Request, lang: str) -> Course:
    shared = services(request)
    out = Course()
    out.level_words["passed"] = vocabulary.label(vocabulary.VERDICT, "PASSED", lang)
    for lesson in shared.get(Catalog).snapshot().visible(False):
        out.lessons[lesson.slug] = f"{lesson.number} · {lesson.text(lang)[0].title}"
        info = shared.get(ExerciseInfoCache).get(lesson.meta.exercise) if lesson.meta.exercise else None
        if info is not None:
            out.exercises[info.id] = info.title.get(lang) or info.title.get("en") or info.id
            out.tiers[info.id] = [t.id for t in info.tiers]
            for tier in info.tiers:  # the same id means the same threshold in every spec of this course
                out.level_words.setdefault(tier.id, vocabulary.tier_label(tier.against, tier.speedup, lang))
            out.exercise_page.setdefault(info.id, lesson.slug)
    return out
