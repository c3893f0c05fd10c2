"""The LTI endpoints an LMS calls (login, launch, JWKS) and the pages a launch leads to.

Flow: the LMS sends the browser to /lti/login; we answer with a redirect to the LMS's authorisation URL
(state in a cookie, nonce stored); the LMS posts the signed id_token to /lti/launch; pylti1p3 verifies
it (app/lti/verify.py) and we answer with a page the LMS can frame. Signing in happens on the next,
first-party page (app/lti/handoff.py explains why; app/lti/continue_routes.py serves it).
"""
from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from sqlalchemy.orm import Session

from app.accounts import ratelimit
from app.accounts.deps import SessionDep
from app.accounts.ratelimit import Rate
from app.accounts.views import account_context, render
from app.core.bodies import make_router
from app.core.errors import AppError
from app.core.languages import reader_language
from app.core.services import services
from app.i18n import gettext_for
from app.lessons.catalog import Catalog
from app.lti import courses, handoff, keys, resources, verify
from app.lti.claims import Launch
from app.lti.framing import allow_lms_frame
from app.lti.messages import ASSIGNMENT_CHOICE, LtiError
from app.lti.models import LtiPlatform
from app.lti.tool_config import registration_for

router = make_router()
INSTRUCTING = ("instructor", "grader")
# Each login stores a nonce (kept 10 minutes): a cap per address bounds what one client can make us
# store. Generous, because a whole lecture hall behind one school NAT launches at once.
LOGINS_PER_IP = Rate.parse("600/60")


async def _params(request: Request) -> dict[str, Any]:
    params: dict[str, Any] = dict(request.query_params)
    if request.method == "POST":
        params.update((k, v) for k, v in (await request.form()).items() if isinstance(v, str))
    return params


def _lang(request: Request) -> str:
    """The language of a refusal that comes before the token is trusted: the browser's (cookie,
    Accept-Language), not the token's locale claim."""
    return reader_language(request)


def _refused(request: Request, exc: AppError, lang: str) -> Response:
    """The refusal as a page the LMS may frame (the site's own error page may not be framed)."""
    context = account_context(request, lang, "/", None)
    context.update(status=exc.status, error_text=exc.message(lang))
    return allow_lms_frame(render(request, "accounts/message.html", context, status=exc.status, headers=exc.headers))


# ---- what the LMS calls ----------------------------------------------------------------------------

@router.get("/lti/jwks", name="lti_jwks", include_in_schema=False)
def jwks(db: SessionDep) -> JSONResponse:
    """Our public keys; the platform verifies our client assertions and Deep Linking answers with them."""
    published = keys.jwks(db)
    if not published["keys"]:  # first call ever: make the key now, so the LMS can be set up at once
        keys.signing_key(db)
        db.commit()
        published = keys.jwks(db)
    return JSONResponse(published, headers={"Cache-Control": "max-age=300"})


@router.api_route("/lti/login", methods=["GET", "POST"], name="lti_login_endpoint", include_in_schema=False)
async def login(request: Request, db: SessionDep) -> Response:
    params = await _params(request)
    ip = request.client.host if request.client else "?"
    claim = ratelimit.take(db, [("lti-login", ip, LOGINS_PER_IP)])
    db.commit()
    if not claim.allowed:
        return _refused(request, LtiError("rate_limited", status=429, headers={"Retry-After": str(claim.wait)}),
                        _lang(request))
    try:
        response = verify.login(request, params, db, str(request.url_for("lti_launch")))
    except LtiError as exc:
        db.rollback()
        return _refused(request, exc, _lang(request))
    db.commit()
    return response


@router.post("/lti/launch", name="lti_launch", include_in_schema=False)
async def launch(request: Request, db: SessionDep) -> Response:
    params = await _params(request)
    lang = _lang(request)
    try:
        message, body, platform = verify.launch(request, params, db)
        claims = Launch.from_claims(body, lang)
        lang = claims.lang
        if not claims.subject:
            raise LtiError("launch_invalid", status=400)
        if message.is_deep_link_launch():
            response = _deep_link_picker(request, db, platform, claims, body)
        else:
            response = _resource_launch(request, db, platform, claims)
    except LtiError as exc:
        db.rollback()
        return _refused(request, exc, lang)
    db.commit()
    return response


def _resource_launch(request: Request, db: Session, platform: LtiPlatform, claims: Launch) -> Response:
    course = resources.Course(db, platform.id, claims.context_id)
    if resources.path_for(services(request).get(Catalog).snapshot(), claims.resource, claims.lang, course) is None:
        raise LtiError("unknown_resource", status=404)
    courses.context_for(db, platform.id, claims)
    token = handoff.issue(db, platform.id, claims)
    context = account_context(request, claims.lang, "/", None)
    # the token travels in a form's body, never in a URL (URLs end up in access logs and history);
    # a launch that already has its own window goes straight on (the form submits itself)
    context.update(token=token, title=claims.resource_link_title or claims.context_title,
                   own_window=claims.document_target == "window")
    return allow_lms_frame(render(request, "lti/launch.html", context))


def _deep_link_picker(request: Request, db: Session, platform: LtiPlatform, claims: Launch,
                      body: dict[str, Any]) -> Response:
    if claims.role not in INSTRUCTING:
        raise LtiError("not_instructor", status=403)
    settings = body.get("https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings") or {}
    deployment = body.get("https://purl.imsglobal.org/spec/lti/claim/deployment_id")
    token = handoff.issue(db, platform.id, claims, {"deep_link": settings, "deployment_id": deployment})
    context = account_context(request, claims.lang, "/", None)
    course = resources.Course(db, platform.id, claims.context_id)
    context.update(token=token, choices=resources.choices(services(request).get(Catalog).snapshot(), claims.lang, course,
                                                          gettext_for(claims.lang)(ASSIGNMENT_CHOICE)))
    return allow_lms_frame(render(request, "lti/pick.html", context))


@router.post("/lti/deep-link", include_in_schema=False)
async def deep_link_answer(request: Request, db: SessionDep) -> Response:
    """The instructor's pick, signed and posted back to the LMS (a form the browser submits)."""
    params = await _params(request)
    lang = _lang(request)
    try:
        platform_id, claims, extra = handoff.take(db, str(params.get("token", "")))
        lang = claims.lang
        picked = str(params.get("resource", ""))
        snapshot = services(request).get(Catalog).snapshot()
        course = resources.Course(db, platform_id, claims.context_id)
        offered = resources.choices(snapshot, lang, course, gettext_for(lang)(ASSIGNMENT_CHOICE))
        choice = next((c for c in offered if c.resource == picked), None)
        platform = db.get(LtiPlatform, platform_id)
        settings = extra.get("deep_link") or {}
        return_url = settings.get("deep_link_return_url") if isinstance(settings, dict) else None
        if choice is None or platform is None or not isinstance(return_url, str):
            raise LtiError("unknown_resource", status=404)
        item = (DeepLinkResource().set_url(str(request.url_for("lti_launch"))).set_title(choice.title)
                .set_custom_params({"resource": choice.resource}))
        answer = DeepLink(registration_for(db, platform), str(extra.get("deployment_id", "")), settings)  # type: ignore[arg-type]
        jwt_value = answer.get_response_jwt([item])
    except LtiError as exc:
        db.rollback()
        return _refused(request, exc, lang)
    db.commit()
    context = account_context(request, lang, "/", None)
    context.update(return_url=return_url, jwt=jwt_value, title=choice.title)
    return allow_lms_frame(render(request, "lti/deep_link_return.html", context), form_target=return_url)
