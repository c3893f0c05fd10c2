"""The instructor's page for an LMS course: its class, the roster as the LMS lists it, roster sync,
and what was sent to the LMS's gradebook and when."""
from __future__ import annotations

from fastapi import Depends, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session

from app.accounts.auth import Auth
from app.accounts.deps import AuthDep, SessionDep, csrf_protect
from app.accounts.views import account_context, render
from app.classes import roster
from app.classes.models import CourseClass
from app.classes.permissions import class_can
from app.core.bodies import make_router
from app.core.ids import RowId
from app.lti import courses, passback_status, roster_sync
from app.lti.messages import LtiError
from app.lti.models import LtiContext, LtiPlatform

router = make_router()


def _course(db: Session, context_pk: int, auth: Auth, permission: str) -> tuple[LtiContext, CourseClass]:
    """The LMS course and its class, when the caller holds ``permission`` in that class (404 otherwise:
    a stranger learns nothing about which courses exist)."""
    context = db.get(LtiContext, context_pk)
    course_class = roster.find_by_external_id(db, courses.external_id(context.platform_id, context.context_id)) \
        if context is not None else None
    if context is None or course_class is None:
        raise LtiError("not_found", status=404)
    if not class_can(auth.user.role, roster.member_role(db, course_class.id, auth.user.id), permission):
        raise LtiError("not_found", status=404)
    return context, course_class


@router.get("/{lang:lang}/lti/courses/{context_pk}", include_in_schema=False)
def course_page(lang: str, context_pk: RowId, request: Request, auth: AuthDep,
                db: SessionDep, synced: int | None = None) -> Response:
    context, course_class = _course(db, context_pk, auth, "roster.view")
    page = account_context(request, lang, f"/lti/courses/{context_pk}", auth)
    page.update(context=context, course_class=course_class, members=courses.members(db, context.id),
                scores=passback_status.for_course(db, context.id),
                can_sync=class_can(auth.user.role, roster.member_role(db, course_class.id, auth.user.id),
                                   "roster.manage"), synced=synced)
    return render(request, "lti/course.html", page)


@router.post("/{lang:lang}/lti/courses/{context_pk}/roster", dependencies=[Depends(csrf_protect)],
             include_in_schema=False)
def sync_roster(lang: str, context_pk: RowId, auth: AuthDep, db: SessionDep) -> Response:
    context, _ = _course(db, context_pk, auth, "roster.manage")
    platform = db.get(LtiPlatform, context.platform_id)
    assert platform is not None  # the context's foreign key keeps its platform
    count = roster_sync.sync(db, platform, context)
    db.commit()
    return RedirectResponse(f"/{lang}/lti/courses/{context_pk}?synced={count}", status_code=303)
