"""Helpers the comments, notifications and reports routes share: the lesson, the language of
messages, signed-in writers (sign-in checked before CSRF, so a visitor hears "sign in"). Their
refusals (CommentsError) are rendered by app/routes/errors.py like every AppError."""
from __future__ import annotations

from fastapi import Depends, Request

from app.accounts import auth as authn
from app.accounts.deps import csrf_protect, require_auth
from app.comments.limits import CommentsConfig
from app.comments.messages import CommentsError
from app.core.config import LANGUAGES
from app.i18n.requests import preferred_language


def config(request: Request) -> CommentsConfig:
    cfg = getattr(request.app.state, "comments", None)
    if cfg is None:
        cfg = request.app.state.comments = CommentsConfig.from_settings(request.app.state.settings)
    return cfg


def ui_lang(request: Request, lang: str | None = None) -> str:
    """The language for messages: the one asked for, else the reader's preference."""
    if lang in LANGUAGES:
        request.state.ui_lang = lang
        return lang
    chosen = request.query_params.get("lang")
    if chosen in LANGUAGES:
        return chosen
    return preferred_language(request, request.app.state.settings.default_language)


def lessons(request: Request):
    state = request.app.state
    return state.catalog.snapshot().visible(state.settings.show_drafts)


def lesson_or_404(request: Request, slug: str):
    for lesson in lessons(request):
        if lesson.slug == slug:
            return lesson
    raise CommentsError("lesson_not_found", status=404)


def slugs(request: Request) -> frozenset[str]:
    return frozenset(lesson.slug for lesson in lessons(request))


def signed_in_writer(auth: authn.Auth = Depends(require_auth), _csrf: None = Depends(csrf_protect)) -> authn.Auth:
    return auth
