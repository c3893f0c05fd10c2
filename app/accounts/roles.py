"""Roles and what each may do. Checks ask for a permission, never for a role name."""
from __future__ import annotations

ROLES = ("learner", "instructor", "grader", "admin")

PERMISSIONS: dict[str, frozenset[str]] = {
    "learner": frozenset(),
    # instructors write lessons and look after their comment threads; they see learners' progress and
    # run classes (app/classes: inside a class, its own roster roles decide, app/classes/permissions.py)
    "instructor": frozenset({"lessons.preview", "progress.view_others", "comments.moderate", "classes.create"}),
    # graders review submissions and may correct XP with compensating entries
    "grader": frozenset({"submissions.review", "progress.view_others", "xp.adjust"}),
    "admin": frozenset({"lessons.preview", "progress.view_others", "submissions.review", "xp.adjust",
                        "comments.moderate", "users.manage", "classes.create", "classes.all"}),
}


def can(role: str, permission: str) -> bool:
    return permission in PERMISSIONS.get(role, frozenset())
