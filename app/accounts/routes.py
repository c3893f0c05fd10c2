"""Account pages: sign up, sign in, sign out (here or everywhere), profile, tokens, reset,
delete, and the admins' role page. Every POST passes ``csrf_protect``."""
from __future__ import annotations

from fastapi import Depends, Form, Request
from fastapi.responses import RedirectResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts import auth as authn
from app.accounts import ratelimit, users
from app.accounts.deps import csrf_protect, current_auth, db_session, require_auth, require_permission, verify_csrf
from app.accounts.messages import AccountsError, message
from app.accounts.models import User
from app.accounts.roles import ROLES
from app.accounts.usernames import username_key
from app.accounts.views import account_context, render, safe_next
from app.core.bodies import make_router
from app.core.ids import RowId
from app.i18n.requests import require_lang
from app.progress import learner, ledger, xp_history
from app.progress.achievements import earned_achievements, take_announcements
from app.progress.registry import ACHIEVEMENTS, ACHIEVEMENTS_BY_ID

router = make_router()
require_users_manage = require_permission("users.manage")
CSRF = [Depends(csrf_protect)]


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "?"


def _form_page(request, lang, template, auth, *, error=None, status=200, headers=None, **values):
    context = account_context(request, lang, f"/{template.split('/')[-1][:-5]}", auth)
    context.update(error=message(error, lang) if error else None, error_code=error, **values)
    return render(request, template, context, status=status, headers=headers)


def _signed_in_redirect(request: Request, db: Session, user: User, next_url: str, lang: str):
    cfg = request.app.state.accounts
    token, _ = authn.start_session(db, user, cfg.session_ttl, request.headers.get("user-agent", ""))
    db.commit()
    response = RedirectResponse(safe_next(next_url, lang), status_code=303)
    authn.set_session_cookie(response, request, token, cfg.session_ttl)
    return response


# ---- sign up / sign in / sign out ----------------------------------------------------------------

@router.get("/{lang}/signup")
def signup_page(lang: str, request: Request, next: str = "", auth=Depends(current_auth)):
    require_lang(lang)
    return _form_page(request, lang, "accounts/signup.html", auth, next=safe_next(next, lang), username="")


@router.post("/{lang}/signup", dependencies=CSRF)
def signup_submit(lang: str, request: Request, username: str = Form(""), password: str = Form(""),
                  password2: str = Form(""), tz: str = Form("UTC"), next: str = Form(""),
                  db: Session = Depends(db_session)):
    require_lang(lang)
    ip = client_ip(request)
    shown = username[:64]
    claim = ratelimit.take(db, [("signup", ip, request.app.state.accounts.signup_per_ip)])
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


@router.get("/{lang}/signin")
def signin_page(lang: str, request: Request, next: str = "", auth=Depends(current_auth)):
    require_lang(lang)
    return _form_page(request, lang, "accounts/signin.html", auth, next=safe_next(next, lang), username="")


@router.post("/{lang}/signin", dependencies=CSRF)
def signin_submit(lang: str, request: Request, username: str = Form(""), password: str = Form(""),
                  next: str = Form(""), db: Session = Depends(db_session)):
    require_lang(lang)
    cfg = request.app.state.accounts
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
def signout(request: Request, next: str = Form(""), csrf_token: str = Form(""), auth=Depends(current_auth),
            db: Session = Depends(db_session)):
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
def signout_everywhere(request: Request, lang: str = Form("ko"), revoke_tokens: str = Form(""),
                       auth=Depends(require_auth), db: Session = Depends(db_session)):
    authn.end_all_sessions(db, auth.user)
    if revoke_tokens == "yes":  # sessions only, unless asked: the page says API tokens keep working
        authn.revoke_all_api_tokens(db, auth.user)
    db.commit()
    response = RedirectResponse(f"/{lang if lang in ('ko', 'en') else 'ko'}/", status_code=303)
    authn.clear_session_cookie(response)
    return response


# ---- profile ---------------------------------------------------------------------------------------

def _visible_lessons(request: Request):
    state = request.app.state
    return state.catalog.snapshot().visible(state.settings.show_drafts)


def _profile(request: Request, lang: str, auth, db: Session, *, new_token: str | None = None,
             notice: str | None = None, error: str | None = None, status: int = 200):
    user = auth.user
    lessons = _visible_lessons(request)
    state = learner.learner_state(db, user, lessons, lang)
    completed = learner.completed_lessons(db, user)
    earned = {a.achievement_id: a.earned_at for a in earned_achievements(db, user)}
    context = account_context(request, lang, "/profile", auth)
    context.update(
        learner=state, lesson_slugs=[lesson.slug for lesson in lessons],
        lessons=[{"lesson": lesson, "title": lesson.text(lang)[0].title, "done_at": completed.get(lesson.slug)} for lesson in lessons],
        achievements=[{"a": a, "earned_at": earned.get(a.id)} for a in ACHIEVEMENTS],
        xp_history=xp_history.rows(ledger.history(db, user), lang,
                                   {lesson.slug: f"{lesson.number} · {lesson.text(lang)[0].title}" for lesson in lessons},
                                   request.app.state.exercises), tokens=authn.list_api_tokens(db, user), new_token=new_token,
        submissions=(subs := _submissions(db, user)), effective_verdicts=_effective_verdicts(db, subs), notice=notice,
        # each submission row links to its lesson's exercise panel, which shows that submission
        exercise_pages={lesson.meta.exercise: f"/{lang}/lessons/{lesson.slug}" for lesson in lessons if lesson.meta.exercise},
        exercise_titles=_exercise_titles(request, lessons, lang), error=message(error, lang) if error else None,
        announcements=take_announcements(db, user),
    )
    db.commit()
    return render(request, "accounts/profile.html", context, status=status)


def _exercise_titles(request: Request, lessons, lang: str) -> dict[str, str]:
    titles = {}
    for lesson in lessons:
        info = request.app.state.exercises.get(lesson.meta.exercise) if lesson.meta.exercise else None
        if info is not None:
            titles[info.id] = info.title.get(lang) or info.title.get("en") or info.id
    return titles


def _submissions(db: Session, user: User, limit: int = 50) -> list:
    from app.submissions.models import Submission  # the grading queue's table

    return list(db.scalars(select(Submission).where(Submission.user_id == user.id)
                           .order_by(Submission.created_at.desc(), Submission.id.desc()).limit(limit)))


def _effective_verdicts(db: Session, rows: list) -> dict[int, str | None]:
    """A grader's override is the verdict the learner reads, here as on the panel."""
    from app.submissions.reviews import effective_verdict, reviews_for

    trail = reviews_for(db, [r.id for r in rows])
    return {r.id: effective_verdict(r, trail[r.id]) for r in rows}


def _require_page_auth(request: Request, lang: str, auth):
    if auth is None or auth.via != "cookie":
        return RedirectResponse(f"/{lang}/signin?next=/{lang}/profile", status_code=303)
    return None


@router.get("/{lang}/profile")
def profile(lang: str, request: Request, auth=Depends(current_auth), db: Session = Depends(db_session)):
    require_lang(lang)
    return _require_page_auth(request, lang, auth) or _profile(request, lang, auth, db)


@router.post("/{lang}/profile/timezone", dependencies=CSRF)
def set_timezone(lang: str, request: Request, tz: str = Form(""), auth=Depends(require_auth),
                 db: Session = Depends(db_session)):
    require_lang(lang)
    name = users.valid_timezone(tz)
    if name != tz.strip() and tz.strip() != "":
        return _profile(request, lang, auth, db, error="bad_timezone", status=400)
    auth.user.tz = name
    db.merge(auth.user)
    db.commit()
    return RedirectResponse(f"/{lang}/profile", status_code=303)


@router.post("/{lang}/profile/tokens", dependencies=CSRF)
def create_token(lang: str, request: Request, name: str = Form(""), auth=Depends(require_auth),
                 db: Session = Depends(db_session)):
    require_lang(lang)
    name = name.strip()
    if not 1 <= len(name) <= 64:
        return _profile(request, lang, auth, db, error="token_name", status=400)
    token, _ = authn.create_api_token(db, auth.user, name)
    db.commit()
    return _profile(request, lang, auth, db, new_token=token)  # shown once, in this response only


@router.post("/{lang}/profile/tokens/{token_id}/revoke", dependencies=CSRF)
def revoke_token(lang: str, token_id: RowId, request: Request, auth=Depends(require_auth),
                 db: Session = Depends(db_session)):
    require_lang(lang)
    if not authn.revoke_api_token(db, auth.user, token_id):
        raise AccountsError(404, "not_found")
    db.commit()
    return RedirectResponse(f"/{lang}/profile", status_code=303)


@router.get("/{lang}/profile/reset")
def reset_confirm_page(lang: str, request: Request, auth=Depends(current_auth)):
    require_lang(lang)
    redirect = _require_page_auth(request, lang, auth)
    if redirect:
        return redirect
    context = account_context(request, lang, "/profile/reset", auth)
    context.update(action="reset", error=None)
    return render(request, "accounts/confirm.html", context)


@router.post("/{lang}/profile/reset", dependencies=CSRF)
def reset_progress(lang: str, request: Request, confirm: str = Form(""), auth=Depends(require_auth),
                   db: Session = Depends(db_session)):
    require_lang(lang)
    if confirm != "yes":
        raise AccountsError(400, "confirm_required")
    user = db.get(User, auth.user.id)
    learner.reset_progress(db, user)
    db.commit()
    return RedirectResponse(f"/{lang}/profile", status_code=303)


@router.get("/{lang}/profile/delete")
def delete_confirm_page(lang: str, request: Request, auth=Depends(current_auth)):
    require_lang(lang)
    redirect = _require_page_auth(request, lang, auth)
    if redirect:
        return redirect
    context = account_context(request, lang, "/profile/delete", auth)
    context.update(action="delete", error=None)
    return render(request, "accounts/confirm.html", context)


@router.post("/{lang}/profile/delete", dependencies=CSRF)
def delete_account(lang: str, request: Request, password: str = Form(""), auth=Depends(require_auth),
                   db: Session = Depends(db_session)):
    require_lang(lang)
    user = db.get(User, auth.user.id)
    ok, _ = users.passwords.verify_password(password, user.password_hash) if password else (False, None)
    if not ok:
        context = account_context(request, lang, "/profile/delete", auth)
        context.update(action="delete", error=message("wrong_password", lang))
        return render(request, "accounts/confirm.html", context, status=400)
    users.delete_user(db, user)
    db.commit()
    response = RedirectResponse(f"/{lang}/", status_code=303)
    authn.clear_session_cookie(response)
    return response


# ---- admin: roles ----------------------------------------------------------------------------------

@router.get("/{lang}/admin/users")
def admin_users(lang: str, request: Request, auth=Depends(require_users_manage),
                db: Session = Depends(db_session)):
    require_lang(lang)
    context = account_context(request, lang, "/admin/users", auth)
    context.update(users=list(db.scalars(select(User).order_by(User.created_at))), roles=ROLES, error=None)
    return render(request, "accounts/admin_users.html", context)


@router.post("/{lang}/admin/users/{user_id}/role", dependencies=CSRF)
def admin_set_role(lang: str, user_id: RowId, request: Request, role: str = Form(""),
                   auth=Depends(require_users_manage), db: Session = Depends(db_session)):
    require_lang(lang)
    target = db.get(User, user_id)
    if target is None:
        raise AccountsError(404, "not_found")
    users.change_role(db, target, role)
    db.commit()
    return RedirectResponse(f"/{lang}/admin/users", status_code=303)


def achievement_names(ids, lang):
    return [ACHIEVEMENTS_BY_ID[i].name[lang] for i in ids if i in ACHIEVEMENTS_BY_ID]
