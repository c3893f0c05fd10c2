"""Roles and what each may do: the one table every permission check reads. Checks ask for a
``Permission``, never for a role name, and no module spells a permission as a string of its own."""
from __future__ import annotations

from enum import StrEnum


class Permission(StrEnum):
    PREVIEW_LESSONS = "lessons.preview"  # see draft lessons
    VIEW_OTHERS_PROGRESS = "progress.view_others"  # read another user's progress and XP
    REVIEW_SUBMISSIONS = "submissions.review"  # the graders' dashboard and API: notes, overrides, re-runs
    ADJUST_XP = "xp.adjust"  # correct XP with compensating ledger entries
    MODERATE_COMMENTS = "comments.moderate"  # hide and unhide comments, lock and unlock threads, read reports
    MANAGE_USERS = "users.manage"  # change roles
    CREATE_CLASSES = "classes.create"  # create a class and run it (inside a class, its roster roles decide)
    ALL_CLASSES = "classes.all"  # see and manage every class, not only one's own


class Role(StrEnum):
    LEARNER = "learner"
    INSTRUCTOR = "instructor"
    GRADER = "grader"
    ADMIN = "admin"


ROLES: tuple[str, ...] = tuple(role.value for role in Role)  # the values a user row's role may hold (forms list them in this order)

PERMISSIONS: dict[str, frozenset[Permission]] = {
    Role.LEARNER: frozenset(),
    # instructors write lessons and look after their comment threads; they see learners' progress and
    # run classes (app/classes: inside a class, its own roster roles decide, app/classes/permissions.py)
    Role.INSTRUCTOR: frozenset({Permission.PREVIEW_LESSONS, Permission.VIEW_OTHERS_PROGRESS,
                                Permission.MODERATE_COMMENTS, Permission.CREATE_CLASSES}),
    # graders review submissions and may correct XP with compensating entries
    Role.GRADER: frozenset({Permission.REVIEW_SUBMISSIONS, Permission.VIEW_OTHERS_PROGRESS, Permission.ADJUST_XP}),
    Role.ADMIN: frozenset(Permission),
}


def can(role: str, permission: Permission) -> bool:
    return permission in PERMISSIONS.get(role, frozenset())
