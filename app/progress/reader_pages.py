"""Rendered pages for signed-in readers, kept per reader so a repeat view renders nothing.

What a page shows of the reader comes only from ReaderView.context (user, csrf_token,
announcements); the strip is added per request from the learner state. So a page rendered for
(page, its deps, the user's row as it is now, the session's CSRF token) is the same page next
time. Pages that announce achievements are never kept (they are shown once).
Anything new that a template shows about the reader must be in reader_key(). The cache itself is
``services(request).reader_pages``, one per application, built by create_app.
"""
from __future__ import annotations

from typing import Any

from app.accounts.models import User

_USER_COLUMNS = tuple(c.key for c in User.__table__.columns)


def reader_key(context: dict[str, Any]) -> tuple[object, ...] | None:
    """The part of a page's cache key that names the reader; None when the page must not be kept."""
    if context.get("announcements"):
        return None
    user = context["user"]
    return (tuple(getattr(user, name) for name in _USER_COLUMNS), context.get("csrf_token"))
