"""Who may see draft lessons: signed-in readers whose role grants ``lessons.preview``
(instructors and admins). Everyone else gets a 404, as if the draft did not exist.

Pages are served to visitors without touching the database, so the question is asked only
when it matters: the catalog holds a draft and the request carries a session cookie.
"""
from __future__ import annotations

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from app.accounts.auth import SESSION_COOKIE, Auth
from app.accounts.deps import current_auth
from app.accounts.messages import AccountsError
from app.accounts.roles import Permission, can
from app.core.services import services
from app.lessons.catalog import Snapshot


def preview_auth(request: Request) -> Auth | None:
    """The signed-in reader when their role may preview drafts, else None.

    Synchronous (database): the accounts' current-user dependency, asked directly.
    """
    with services(request).session_factory() as db:
        try:
            auth = current_auth(request, db)
        except AccountsError:  # a bad API token: no preview, the page itself still answers
            return None
        if auth is None or not can(auth.user.role, Permission.PREVIEW_LESSONS):
            return None
        db.expunge(auth.user)  # read after the session closes (templates show the username)
        return auth


def may_preview(request: Request) -> bool:
    return preview_auth(request) is not None


async def show_drafts(request: Request, snapshot: Snapshot) -> bool:
    """True when this request may see the snapshot's drafts."""
    if services(request).settings.show_drafts:  # a local author's machine (MKC_SHOW_DRAFTS=1)
        return True
    if all(lesson.published for lesson in snapshot.lessons) or SESSION_COOKIE not in request.cookies:
        return False
    return await run_in_threadpool(may_preview, request)
