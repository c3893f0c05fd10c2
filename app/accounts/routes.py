"""Account pages: sign up, sign in, sign out (here or everywhere), the admins' role page with its
one-time password-reset links, and the page such a link opens. Every
POST passes ``csrf_protect``. The profile (progress, submissions, tokens, reset, delete) is
app/profile, which builds on this package and on the learner's features."""
from __future__ import annotations

from fastapi import Form, Request
from fastapi.responses import RedirectResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts import auth as authn
from app.accounts import ratelimit, resets, users
from app.accounts.auth import AccountsConfig
from app.accounts.deps import CSRF, AuthDep, OptionalAuthDep, SessionDep, UserManagerDep, verify_csrf
from app.accounts.messages import AccountsError, message
from app.accounts.models import User
from app.accounts.roles import ROLES
from app.accounts.usernames import username_key
from app.accounts.views import account_context, render, safe_next
from app.core.bodies import make_router
from app.core.ids import OptionalRowIdQuery, RowId
from app.core.services import services

router = make_router()


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "?"


def _form_page(request, lang, template, auth, *, error=None, status=200, headers=None, **values):
    context = account_context(request, lang, f"/{template.split('/')[-1][:-5]}", auth)
    context.update(error=message(error, lang) if error else None, error_code=error, **values)
    return render(request, template, context, status=status, headers=headers)


def _signed_in_redirect(request: Request, db: Session, user: User, next_url: str, lang: str):
    cfg = services(request).get(AccountsConfig)
    token, _ = authn.start_session(db, user, cfg.session_ttl, request.headers.get("user-agent", ""))
    db.commit()
    response = RedirectResponse(safe_next(next_url, lang), status_code=303)
    authn.set_session_cookie(response, request, token, cfg.session_ttl)
    return response


# ---- sign up / sign in / sign out ----------------------------------------------------------------

@router.get("/{lang:lang}/signup")
def signup_page(lang: str, request: Request, auth: OptionalAuthDep, next: str = ""):
    return _form_page(request, lang, "accounts/signup.html", auth, next=safe_next(next, lang), username="")


@router.post("/{lang:lang}/signup", dependencies=CSRF)
def signup_submit(lang: str, request: Request, db: SessionDep, username: str = Form(""),
                  password: str = Form(""), password2: str = Form(""), tz: str = Form("UTC"),
                  next: str = Form("")):
    ip = client_ip(request)
    shown = username[:64]
    claim = ratelimit.take(db, [("signup", ip, services(request).get(AccountsConfig).signup_per_ip)])
    db.commit()  # every attempt counts, whatever happens next
    if not claim.allowed:
        return _form_page(request, lang, "accounts/signup.html", None, error="rate_limited", status=429,
                          headers={"Retry-After": str(claim.wait)}, next=safe_next(next, lang), username=shown)
    if password != password2:
        return _form_page(request, lang, "accounts/signup.html", None, error="password_mismatch", status=400,
                          next=safe_next(next, lang), username=shown)
    try:
        user = users.create_user(db, username, password, tz=tz)
    except AccountsError as exc:
        return _form_page(request, lang, "accounts/signup.html", None, error=exc.code, status=exc.status,
                          next=safe_next(next, lang), username=shown)
    return _signed_in_redirect(request, db, user, next, lang)


@router.get("/{lang:lang}/signin")
def signin_page(lang: str, request: Request, auth: OptionalAuthDep, next: str = ""):
    return _form_page(request, lang, "accounts/signin.html", auth, next=safe_next(next, lang), username="")


@router.post("/{lang:lang}/signin", dependencies=CSRF)
def signin_submit(lang: str, request: Request, db: SessionDep, username: str = Form(""),
                  password: str = Form(""), next: str = Form("")):
    cfg = services(request).get(AccountsConfig)
    ip = client_ip(request)
    per_user = f"{ip}\x1f{username_key(username[:200])[:64]}"
    shown = username[:64]
    # The attempt takes its place in both limits BEFORE the password is checked, and that is committed
    # at once: parallel guesses cannot all pass a check that none of them has counted yet.
    claim = ratelimit.take(db, [("signin", per_user, cfg.signin_per_user), ("signin-ip", ip, cfg.signin_per_ip)])
    db.commit()
    if not claim.allowed:
        return _form_page(request, lang, "accounts/signin.html", None, error="rate_limited", status=429,
                          headers={"Retry-After": str(claim.wait)}, next=safe_next(next, lang), username=shown)
    user = users.authenticate(db, username, password)
    if user is None:
        return _form_page(request, lang, "accounts/signin.html", None, error="wrong_credentials", status=400,
                          next=safe_next(next, lang), username=shown)
    ratelimit.give_back(db, claim)  # only failures count; a success clears this (IP, username)'s failures
    ratelimit.forget(db, "signin", per_user, [cfg.signin_per_user])
    return _signed_in_redirect(request, db, user, next, lang)


@router.post("/signout")
def signout(request: Request, auth: OptionalAuthDep, db: SessionDep, next: str = Form(""), csrf_token: str = Form("")):
    # Already signed out (e.g. the session expired under an open page): nothing to protect, just go.
    if auth is not None:
        verify_csrf(request, auth, csrf_token)
        authn.end_session(db, auth)
        db.commit()
    lang = next[1:3] if safe_next(next, "ko") == next else "ko"
    response = RedirectResponse(safe_next(next, lang), status_code=303)
    authn.clear_session_cookie(response)
    return response


@router.post("/signout-everywhere", dependencies=CSRF)
def signout_everywhere(request: Request, auth: AuthDep, db: SessionDep,
                       lang: str = Form("ko"), revoke_tokens: str = Form("")):
    authn.end_all_sessions(db, auth.user)
    if revoke_tokens == "yes":  # sessions only, unless asked: the page says API tokens keep working
        authn.revoke_all_api_tokens(db, auth.user)
    db.commit()
    lang = lang if lang in ("ko", "en") else "ko"
    response = RedirectResponse(f"/{lang}/signed-out-everywhere", status_code=303)
    authn.clear_session_cookie(response)
    return response


@router.get("/{lang:lang}/signed-out-everywhere")
def signed_out_everywhere(lang: str, request: Request, auth: OptionalAuthDep):
    """The confirmation after "sign out everywhere" (the page it came from may need a sign-in)."""
    context = account_context(request, lang, "/signed-out-everywhere", auth)
    return render(request, "accounts/signed_out.html", context)


# ---- admin: roles ----------------------------------------------------------------------------------

def _admin_page(request: Request, lang: str, auth, db: Session, **values):
    context = account_context(request, lang, "/admin/users", auth)
    context.update(users=list(db.scalars(select(User).order_by(User.created_at))), roles=ROLES, error=None,
                   reset_hours=resets.LINK_HOURS, **values)
    return render(request, "accounts/admin_users.html", context)


@router.get("/{lang:lang}/admin/users")
def admin_users(lang: str, request: Request, auth: UserManagerDep, db: SessionDep, changed: OptionalRowIdQuery = None):
    """``?changed=<id>``: after a role change, say what that user's role is now."""
    target = db.get(User, changed) if changed else None
    return _admin_page(request, lang, auth, db, role_changed=(target.username, target.role) if target else None)


@router.post("/{lang:lang}/admin/users/{user_id}/reset-link", dependencies=CSRF)
def admin_reset_link(lang: str, user_id: RowId, request: Request, auth: UserManagerDep, db: SessionDep):
    """A one-time link for a user who forgot their password, shown once on the page that answers."""
    target = db.get(User, user_id)
    if target is None:
        raise AccountsError("not_found", status=404)
    token = resets.issue(db, target, auth.user.username)
    db.commit()
    link = str(request.base_url).rstrip("/") + resets.path(lang, token)
    return _admin_page(request, lang, auth, db, reset_for=target.username, reset_link=link)


# ---- a password-reset link -----------------------------------------------------------------------

@router.get("/{lang:lang}/reset-password/{token}")
def reset_page(lang: str, token: str, request: Request, auth: OptionalAuthDep, db: SessionDep):
    user = resets.pending(db, token)
    if user is None:
        return _form_page(request, lang, "accounts/reset_password.html", auth, error="reset_link_invalid",
                          status=404, token=token[:100], username="", valid=False)
    return _form_page(request, lang, "accounts/reset_password.html", auth, token=token, username=user.username,
                      valid=True)


@router.post("/{lang:lang}/reset-password/{token}", dependencies=CSRF)
def reset_submit(lang: str, token: str, request: Request, auth: OptionalAuthDep, db: SessionDep,
                 password: str = Form(""), password2: str = Form("")):
    try:
        user = resets.redeem(db, token, password, password2)
    except AccountsError as exc:
        db.rollback()
        still = resets.pending(db, token)
        return _form_page(request, lang, "accounts/reset_password.html", auth, error=exc.code, status=exc.status,
                          token=token[:100], username=still.username if still else "", valid=still is not None)
    return _signed_in_redirect(request, db, user, f"/{lang}/profile", lang)


@router.post("/{lang:lang}/admin/users/{user_id}/role", dependencies=CSRF)
def admin_set_role(lang: str, user_id: RowId, request: Request, auth: UserManagerDep,
                   db: SessionDep, role: str = Form("")):
    target = db.get(User, user_id)
    if target is None:
        raise AccountsError("not_found", status=404)
    users.change_role(db, target, role)
    db.commit()
    # back to the list (a reload sends nothing again), which confirms the change it names
    return RedirectResponse(f"/{lang}/admin/users?changed={target.id}", status_code=303)
