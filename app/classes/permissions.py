"""What each role inside a class may do: one table, read by every class route (and by the tests,
which generate the roles × routes matrix from it). A site administrator may do everything in every
class; a site grader or instructor who is not on a class's roster may do nothing there."""
from __future__ import annotations

from app.accounts.roles import Permission
from app.accounts.roles import can as site_can

CLASS_PERMISSIONS: dict[str, frozenset[str]] = {
    "learner": frozenset({"class.view", "class.board"}),
    # a grader assigned to the class reads its work and keeps its boards honest
    "grader": frozenset({"class.view", "class.board", "roster.view", "gradebook.view", "insight.view",
                         "board.strike", "submissions.view"}),
    "instructor": frozenset({"class.view", "class.board", "roster.view", "gradebook.view", "insight.view",
                             "board.strike", "submissions.view", "class.manage", "roster.manage",
                             "assignments.manage"}),
}
ALL = frozenset().union(*CLASS_PERMISSIONS.values())


def class_can(site_role: str, class_role: str | None, permission: str) -> bool:
    """``permission`` in a class, for a user with ``site_role`` whose role in the class is ``class_role``
    (None: not on its roster)."""
    if site_can(site_role, Permission.ALL_CLASSES):
        return True
    return class_role is not None and permission in CLASS_PERMISSIONS.get(class_role, frozenset())
