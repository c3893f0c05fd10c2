"""Who may moderate comments and read reports.

app/accounts/roles.py owns the role table; until it lists these permissions, this module grants
them to the roles the course gives that job (instructors and administrators). Checks elsewhere
ask ``can_moderate(user)``, never for a role name.
"""
from __future__ import annotations

from app.accounts.roles import can

MODERATE = "comments.moderate"
_DEFAULT_MODERATORS = frozenset({"instructor", "admin"})


def can_moderate(user) -> bool:
    return user is not None and (can(user.role, MODERATE) or user.role in _DEFAULT_MODERATORS)
