"""The profile pages (/{lang}/profile...): a learner's progress (lessons, achievements, XP history),
their submissions with the verdict they read (a grader's override wins), their API tokens, the
time zone setting, and resetting progress or deleting the account. Every POST passes ``csrf_protect``.

It shows what the learner's features hold (app.progress, app.submissions), so it sits above them
and above app.accounts, whose sign-in and account model it uses; app.accounts imports none of them."""
from __future__ import annotations

from fastapi import Form, Request
from fastapi.responses import RedirectResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts import auth as authn
from app.accounts import users
from app.accounts.deps import CSRF, AuthDep, OptionalAuthDep, SessionDep
from app.accounts.messages import AccountsError, message
from app.accounts.models import User
from app.accounts.views import account_context, render
from app.comments import service as comments_service
from app.core.bodies import make_router
from app.core.ids import RowId
from app.core.services import services
from app.lessons.catalog import Catalog
from app.lessons.exercises import ExerciseInfoCache
from app.progress import learner, xp
from app.progress.achievements import earned_achievements, take_announcements
from app.progress.registry import ACHIEVEMENTS
from app.reports import service as reports_service

router = make_router()


def _visible_lessons(request: Request):
    shared = services(request)
    return shared.get(Catalog).snapshot().visible(shared.settings.show_drafts)


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
        xp_history=xp.history_rows(xp.history(db, user), lang,
                                   {lesson.slug: f"{lesson.number} · {lesson.text(lang)[0].title}" for lesson in lessons},
                                   services(request).get(ExerciseInfoCache)), tokens=authn.list_api_tokens(db, user), new_token=new_token,
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
        info = services(request).get(ExerciseInfoCache).get(lesson.meta.exercise) if lesson.meta.exercise else None
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


@router.get("/{lang:lang}/profile")
def profile(lang: str, request: Request, auth: OptionalAuthDep, db: SessionDep):
    return _require_page_auth(request, lang, auth) or _profile(request, lang, auth, db)


@router.post("/{lang:lang}/profile/timezone", dependencies=CSRF)
def set_timezone(lang: str, request: Request, auth: AuthDep, db: SessionDep, tz: str = Form("")):
    name = users.valid_timezone(tz)
    if name != tz.strip() and tz.strip() != "":
        return _profile(request, lang, auth, db, error="bad_timezone", status=400)
    auth.user.tz = name
    db.merge(auth.user)
    db.commit()
    return RedirectResponse(f"/{lang}/profile", status_code=303)


@router.post("/{lang:lang}/profile/tokens", dependencies=CSRF)
def create_token(lang: str, request: Request, auth: AuthDep, db: SessionDep, name: str = Form("")):
    name = name.strip()
    if not 1 <= len(name) <= 64:
        return _profile(request, lang, auth, db, error="token_name", status=400)
    if not authn.may_add_api_token(db, auth.user):
        return _profile(request, lang, auth, db, error="too_many_tokens", status=409)
    token, _ = authn.create_api_token(db, auth.user, name)
    db.commit()
    return _profile(request, lang, auth, db, new_token=token)  # shown once, in this response only


@router.post("/{lang:lang}/profile/tokens/{token_id}/revoke", dependencies=CSRF)
def revoke_token(lang: str, token_id: RowId, request: Request, auth: AuthDep, db: SessionDep):
    if not authn.revoke_api_token(db, auth.user, token_id):
        raise AccountsError("not_found", status=404)
    db.commit()
    return RedirectResponse(f"/{lang}/profile", status_code=303)


def _confirm_page(request: Request, lang: str, auth, action: str):
    """The page that asks a signed-in learner to confirm ``action`` (reset or delete)."""
    redirect = _require_page_auth(request, lang, auth)
    if redirect:
        return redirect
    return _render_confirm(request, lang, auth, action)


def _render_confirm(request: Request, lang: str, auth, action: str, *, error: str | None = None,
                    choice: str = "", status: int = 200):
    context = account_context(request, lang, f"/profile/{action}", auth)
    context.update(action=action, error=error, choice=choice)
    if action == "delete":
        with services(request).session_factory() as db:
            context.update(comment_count=comments_service.authored_count(db, auth.user),
                           report_count=reports_service.count_by(db, auth.user))
    return render(request, "accounts/confirm.html", context, status=status)


@router.get("/{lang:lang}/profile/reset")
def reset_confirm_page(lang: str, request: Request, auth: OptionalAuthDep):
    return _confirm_page(request, lang, auth, "reset")


@router.post("/{lang:lang}/profile/reset", dependencies=CSRF)
def reset_progress(lang: str, request: Request, auth: AuthDep, db: SessionDep, confirm: str = Form("")):
    if confirm != "yes":
        raise AccountsError("confirm_required", status=400)
    user = db.get(User, auth.user.id)
    if user is None:  # deleted since the session was read (in another tab, or by an admin)
        raise AccountsError("auth_required", status=401)
    learner.reset_progress(db, user)
    db.commit()
    return RedirectResponse(f"/{lang}/profile", status_code=303)


@router.get("/{lang:lang}/profile/delete")
def delete_confirm_page(lang: str, request: Request, auth: OptionalAuthDep):
    return _confirm_page(request, lang, auth, "delete")


@router.post("/{lang:lang}/profile/delete", dependencies=CSRF)
def delete_account(lang: str, request: Request, auth: AuthDep, db: SessionDep,
                   password: str = Form(""), contributions: str = Form("")):
    """``contributions``: "keep" (comments stay under "deleted account", problem reports stay without
    a name) or "delete" (the comments' text and the problem reports go too); the page asks."""
    user = db.get(User, auth.user.id)
    if user is None:  # deleted since the session was read (in another tab, or by an admin)
        raise AccountsError("auth_required", status=401)
    if contributions not in ("keep", "delete"):
        db.rollback()
        return _render_confirm(request, lang, auth, "delete", error=message("choose_contributions", lang), status=400)
    ok, _ = users.passwords.verify_password(password, user.password_hash) if password else (False, None)
    if not ok:
        db.rollback()
        return _render_confirm(request, lang, auth, "delete", error=message("wrong_password", lang),
                               choice=contributions, status=400)
    if contributions == "delete":
        comments_service.erase_all_by(db, user)
        reports_service.erase_by(db, user)
    users.delete_user(db, user)
    db.commit()
    response = RedirectResponse(f"/{lang}/", status_code=303)
    authn.clear_session_cookie(response)
    return response
