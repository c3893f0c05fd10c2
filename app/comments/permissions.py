"""Who may moderate comments and read reports: the roles app/accounts/roles.py grants
``Permission.MODERATE_COMMENTS``. Checks elsewhere ask ``can_moderate(user)``, never for a role name.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.accounts.roles import Permission, can

if TYPE_CHECKING:
    from app.accounts.models import User


def can_moderate(user: User | None) -> bool:
    return user is not None and can(user.role, Permission.MODERATE_COMMENTS)
