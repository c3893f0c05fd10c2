"""Progress and account JSON API. Cookie callers send X-CSRF-Token; token callers send
``Authorization: Bearer mkc_...`` and skip CSRF with the same permissions."""
from __future__ import annotations

from typing import Any

from fastapi import Request
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from app.accounts import users
from app.accounts.deps import CSRF, AuthDep, ProgressViewerDep, SessionDep, UserManagerDep, XpAdjusterDep
from app.accounts.messages import AccountsError
from app.accounts.models import User
from app.core.bodies import FORM_TEXT_BODY_LIMIT, make_router
from app.core.languages import api_lang
from app.core.services import services
from app.lessons.catalog import Catalog, Lesson
from app.progress import schemas, xp
from app.progress.achievements import award_achievements, earned_achievements, mark_announced
from app.progress.learner import LearnerState, completed_lessons, learner_state, strip_json
from app.progress.reading import complete_lesson, merge_browser_progress
from app.progress.registry import Achievement
from app.templating import page_context

router = make_router(prefix="/api")


def _lessons(request: Request) -> list[Lesson]:
    shared = services(request)
    return shared.get(Catalog).snapshot().visible(shared.settings.show_drafts)


def _achievements_json(achievements: list[Achievement], lang: str) -> list[dict[str, str]]:
    return [{"id": a.id, "icon": a.icon, "name": a.name[lang], "description": a.description[lang]}
            for a in achievements]


def _strip_html(request: Request, lang: str, state: LearnerState, lessons: list[Lesson]) -> str:
    context = page_context(lang, "/", services(request).settings.site_name)
    context.update(learner=state, lesson_slugs=[lesson.slug for lesson in lessons])
    return services(request).templates.get_template("partials/strip.html").render(context)


def _progress_json(db: Session, user: User, request: Request, lang: str) -> dict[str, Any]:
    lessons = _lessons(request)
    completed = completed_lessons(db, user)
    state = learner_state(db, user, lessons, lang)
    return {
        "user": {"username": user.username, "role": user.role, "tz": user.tz},
        "strip": strip_json(state),
        "strip_html": _strip_html(request, lang, state, lessons),
        "lessons": {slug: when.isoformat() + "Z" for slug, when in completed.items()},
        "achievements": [{"id": a.achievement_id, "earned_at": a.earned_at.isoformat() + "Z"}
                         for a in earned_achievements(db, user)],
    }


@router.get("/me", response_model=schemas.Progress)
def me(request: Request, auth: AuthDep, db: SessionDep) -> dict[str, Any]:
    return _progress_json(db, auth.user, request, api_lang(request))


class MergeBody(BaseModel):
    completed: dict[str, str] = Field(default_factory=dict, max_length=200)
    read: dict[str, list[str]] = Field(default_factory=dict, max_length=200)


@router.post("/progress/merge", dependencies=CSRF, max_body_size=FORM_TEXT_BODY_LIMIT, response_model=schemas.ProgressMerged)
def merge(body: MergeBody, request: Request, auth: AuthDep, db: SessionDep) -> dict[str, Any]:
    """The visitor's localStorage progress joins the account: union, earliest time kept."""
    lang = api_lang(request)
    lessons = _lessons(request)
    report = merge_browser_progress(db, auth.user, lessons, body.model_dump())
    new = award_achievements(db, auth.user, frozenset(lesson.slug for lesson in lessons))
    mark_announced(db, auth.user, new)
    db.commit()
    result = _progress_json(db, auth.user, request, lang)
    result.update(merged=report.merged, ignored=report.ignored, new_achievements=_achievements_json(new, lang))
    return result


class CompleteBody(BaseModel):
    lang: str | None = Field(default=None, pattern="^(ko|en)$")


@router.post("/progress/lessons/{slug}/complete", dependencies=CSRF, response_model=schemas.LessonCompleted)
def complete(slug: str, request: Request, auth: AuthDep, db: SessionDep, body: CompleteBody | None = None) -> dict[str, Any]:
    lang = api_lang(request)
    lessons = _lessons(request)
    lesson = next((item for item in lessons if item.slug == slug), None)
    if lesson is None:
        raise AccountsError("not_found", status=404)
    complete_lesson(db, auth.user, lesson, body.lang if body else None)
    new = award_achievements(db, auth.user, frozenset(item.slug for item in lessons))
    mark_announced(db, auth.user, new)
    db.commit()
    result = _progress_json(db, auth.user, request, lang)
    result["new_achievements"] = _achievements_json(new, lang)
    return result


@router.get("/users/{username}/progress", response_model=schemas.Progress)
def user_progress(username: str, request: Request, auth: ProgressViewerDep, db: SessionDep) -> dict[str, Any]:
    user = users.find_user(db, username)
    if user is None:
        raise AccountsError("not_found", status=404)
    return _progress_json(db, user, request, api_lang(request))


class AdjustBody(BaseModel):
    username: str = Field(max_length=64)
    amount: int = Field(ge=-100_000, le=100_000)
    reason: str = Field(min_length=1, max_length=200)
    reference: str = Field(min_length=1, max_length=120)


@router.post("/xp/adjust", dependencies=CSRF, response_model=schemas.XpAdjusted)
def adjust_xp(body: AdjustBody, request: Request, auth: XpAdjusterDep, db: SessionDep) -> dict[str, Any]:
    """A grader's override: a compensating ledger entry, idempotent per ``reference``."""
    user = users.find_user(db, body.username)
    if user is None:
        raise AccountsError("not_found", status=404)
    if user.id == auth.user.id:  # a second person adjusts a grader's XP
        raise AccountsError("own_xp", status=403)
    try:
        entry = xp.adjust(db, user, body.amount, f"{body.reason} (by {auth.user.username})",
                              f"{auth.user.id}:{body.reference}")
    except ValueError as exc:
        raise AccountsError("bad_request", status=400) from exc
    db.commit()
    return {"applied": entry is not None, "xp": xp.total_xp(db, user)}


class RoleBody(BaseModel):
    role: str = Field(max_length=16)


@router.post("/admin/users/{username}/role", dependencies=CSRF, response_model=schemas.RoleChanged)
def set_role(username: str, body: RoleBody, request: Request, auth: UserManagerDep, db: SessionDep) -> dict[str, Any]:
    user = users.find_user(db, username)
    if user is None:
        raise AccountsError("not_found", status=404)
    users.change_role(db, user, body.role)
    db.commit()
    return {"username": user.username, "role": user.role}
