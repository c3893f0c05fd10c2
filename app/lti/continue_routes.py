"""The first-party pages a launch leads to: sign the LMS user in, or ask how to, then open the resource.

The one-time hand-off token (app/lti/handoff.py) always travels in a POST body, never in a URL, so it
never lands in access logs or browser history. While a learner signs in to link an existing account,
it waits in a short-lived HttpOnly cookie.
"""
from __future__ import annotations

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session

from app.accounts import auth as authn
from app.accounts.auth import AccountsConfig
from app.accounts.deps import OptionalAuthDep, SessionDep, verify_csrf
from app.accounts.models import User
from app.accounts.views import account_context, render
from app.core.bodies import make_router
from app.core.services import services
from app.lessons.catalog import Catalog
from app.lti import courses, handoff, identity, resources
from app.lti.claims import Launch
from app.lti.messages import LtiError

router = make_router()
INSTRUCTING = ("instructor", "grader")
PENDING_COOKIE = "mkc_lti_pending"


async def _form_token(request: Request) -> str:
    value = (await request.form()).get("token")
    return value if isinstance(value, str) else ""


def _sign_in_and_go(request: Request, db: Session, user_id: int, platform_id: int, claims: Launch) -> Response:
    user = db.get(User, user_id)
    if user is None:  # the account was deleted between the launch and this page
        raise LtiError("handoff_used", status=410)
    context = courses.context_for(db, platform_id, claims)
    if context is not None:
        courses.set_member(db, context, claims.subject, role=claims.role, name=claims.name, user_id=user_id)
        course_class = courses.class_for(db, context, claims.role, user, claims.lang)
        if course_class is not None:
            courses.join_class(db, course_class, user, claims.role)
    course = resources.Course(db, platform_id, claims.context_id)
    target = resources.path_for(services(request).get(Catalog).snapshot(), claims.resource, claims.lang, course) \
        or f"/{claims.lang}/"
    if claims.resource is None and claims.role in INSTRUCTING and context is not None:
        target = f"/{claims.lang}/lti/courses/{context.id}"  # the course's page: roster and grades sent
    cfg = services(request).get(AccountsConfig)
    session_token, _ = authn.start_session(db, user, cfg.session_ttl, request.headers.get("user-agent", ""))
    db.commit()
    response = RedirectResponse(target, status_code=303)
    authn.set_session_cookie(response, request, session_token, cfg.session_ttl)
    response.delete_cookie(PENDING_COOKIE, path="/")
    return response


def _choose(request: Request, lang: str, db: Session, token: str, auth: authn.Auth | None) -> Response:
    platform_id, claims, _ = handoff.peek(db, token)
    known = identity.user_for(db, platform_id, claims.subject)
    if known is not None:
        handoff.take(db, token)
        return _sign_in_and_go(request, db, known.id, platform_id, claims)
    context = account_context(request, lang, "/lti/continue", auth)
    context.update(token=token, lms_name=claims.name)
    response = render(request, "lti/choose.html", context)
    # kept while the learner signs in to link an account (the sign-in page brings them back here)
    response.set_cookie(PENDING_COOKIE, token, max_age=int(handoff.LIFETIME.total_seconds()), httponly=True,
                        samesite="lax", secure=request.url.scheme == "https", path="/")
    return response


@router.post("/{lang:lang}/lti/continue", include_in_schema=False)
async def continue_from_launch(lang: str, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    return _choose(request, lang, db, await _form_token(request), auth)


@router.get("/{lang:lang}/lti/continue", include_in_schema=False)
def continue_after_sign_in(lang: str, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    return _choose(request, lang, db, request.cookies.get(PENDING_COOKIE, ""), auth)


@router.post("/{lang:lang}/lti/continue/new", include_in_schema=False)
async def continue_new(lang: str, request: Request, db: SessionDep) -> Response:
    """A new account for the LMS user. The one-time token in the body is what proves this request came
    from the launch (a forged request cannot know it)."""
    platform_id, claims, _ = handoff.take(db, await _form_token(request))
    if identity.user_for(db, platform_id, claims.subject) is not None:
        raise LtiError("identity_taken", status=409)
    user = identity.create_account(db, platform_id, claims.subject, claims.name)
    return _sign_in_and_go(request, db, user.id, platform_id, claims)


@router.post("/{lang:lang}/lti/continue/link", include_in_schema=False)
async def continue_link(lang: str, request: Request, auth: OptionalAuthDep, db: SessionDep) -> Response:
    """Links the LMS user to the account signed in here: only on that account's own request (its CSRF
    token), never because a name or e-mail matches."""
    if auth is None:
        return RedirectResponse(f"/{lang}/signin?next=/{lang}/lti/continue", status_code=303)
    verify_csrf(request, auth, (await request.form()).get("csrf_token"))
    platform_id, claims, _ = handoff.take(db, await _form_token(request))
    identity.link(db, platform_id, claims.subject, auth.user)
    return _sign_in_and_go(request, db, auth.user.id, platform_id, claims)
