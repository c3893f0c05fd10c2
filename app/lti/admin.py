"""The administrator's LTI page: the values to enter in the LMS, the registered platforms, a form to
register one, and key rotation. Private keys and client secrets are never shown (LTI 1.3 has no client
secret; our private key stays in the database)."""
from __future__ import annotations

from fastapi import Form, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session

from app.accounts.auth import Auth
from app.accounts.deps import CSRF, SessionDep, UserManagerDep
from app.accounts.views import account_context, render
from app.core.bodies import make_router
from app.core.ids import RowId
from app.lti import keys, registry
from app.lti.messages import LtiError
from app.lti.models import LtiPlatform

router = make_router()


def tool_values(request: Request) -> dict[str, str]:
    """What an LMS administrator copies into the LMS's tool registration."""
    return {"login": str(request.url_for("lti_login_endpoint")), "launch": str(request.url_for("lti_launch")),
            "jwks": str(request.url_for("lti_jwks")), "deep_link": str(request.url_for("lti_launch"))}


def _page(request: Request, lang: str, auth: Auth, db: Session, error: str | None = None, status: int = 200,
          form: dict[str, str] | None = None) -> Response:
    context = account_context(request, lang, "/admin/lti", auth)
    platforms = registry.all_platforms(db)
    context.update(tool=tool_values(request), error=LtiError(error).message(lang) if error else None,
                   platforms=[(p, registry.deployments(db, p.id)) for p in platforms], form=form or {},
                   kid=keys.signing_key(db).kid)
    db.commit()  # the first visit makes our key pair
    return render(request, "lti/admin.html", context, status=status)


@router.get("/{lang:lang}/admin/lti", include_in_schema=False)
def admin_page(lang: str, request: Request, auth: UserManagerDep, db: SessionDep) -> Response:
    return _page(request, lang, auth, db)


@router.post("/{lang:lang}/admin/lti", dependencies=CSRF, include_in_schema=False)
def admin_register(lang: str, request: Request, auth: UserManagerDep, db: SessionDep,
                   name: str = Form(""), issuer: str = Form(""), client_id: str = Form(""),
                   auth_login_url: str = Form(""), auth_token_url: str = Form(""), key_set_url: str = Form(""),
                   deployment_ids: str = Form(""), auth_audience: str = Form("")) -> Response:
    form = registry.PlatformForm(name=name, issuer=issuer, client_id=client_id, auth_login_url=auth_login_url,
                                 auth_token_url=auth_token_url, key_set_url=key_set_url,
                                 deployment_ids=registry.split_deployments(deployment_ids), auth_audience=auth_audience)
    try:
        registry.register(db, form)
    except LtiError as exc:
        db.rollback()
        shown = {k: v[:500] for k, v in dict(name=name, issuer=issuer, client_id=client_id,
                                             auth_login_url=auth_login_url, auth_token_url=auth_token_url,
                                             key_set_url=key_set_url, deployment_ids=deployment_ids,
                                             auth_audience=auth_audience).items()}
        return _page(request, lang, auth, db, error=exc.code, status=exc.status, form=shown)
    db.commit()
    return RedirectResponse(f"/{lang}/admin/lti", status_code=303)


@router.post("/{lang:lang}/admin/lti/{platform_id}/delete", dependencies=CSRF, include_in_schema=False)
def admin_delete(lang: str, platform_id: RowId, auth: UserManagerDep, db: SessionDep) -> RedirectResponse:
    if not registry.remove(db, platform_id):
        raise LtiError("not_found", status=404)
    db.commit()
    return RedirectResponse(f"/{lang}/admin/lti", status_code=303)


@router.post("/{lang:lang}/admin/lti/{platform_id}/deployments", dependencies=CSRF, include_in_schema=False)
def admin_deployments(lang: str, platform_id: RowId, request: Request, auth: UserManagerDep,
                      db: SessionDep, deployment_ids: str = Form("")) -> Response:
    """Replaces the platform's deployment ids (an LMS adds one each time the tool is installed again)."""
    platform = db.get(LtiPlatform, platform_id)
    if platform is None:
        raise LtiError("not_found", status=404)
    try:
        registry.set_deployments(db, platform, registry.split_deployments(deployment_ids))
    except LtiError as exc:
        db.rollback()
        return _page(request, lang, auth, db, error=exc.code, status=exc.status)
    db.commit()
    return RedirectResponse(f"/{lang}/admin/lti", status_code=303)


@router.post("/{lang:lang}/admin/lti/rotate-key", dependencies=CSRF, include_in_schema=False)
def admin_rotate(lang: str, auth: UserManagerDep, db: SessionDep) -> RedirectResponse:
    keys.rotate(db)
    db.commit()
    return RedirectResponse(f"/{lang}/admin/lti", status_code=303)
