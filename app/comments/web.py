"""Helpers the comments, notifications and reports routes share: the lesson, the language of
messages, the comments' limits (signed-in writers: ``WriterDep`` in app/accounts/deps.py). Their
refusals (CommentsError) are rendered by app/routes/errors.py like every AppError."""
from __future__ import annotations

from fastapi import Request

from app.comments.limits import CommentsConfig
from app.comments.messages import CommentsError
from app.core.config import LANGUAGES
from app.core.languages import reader_language
from app.core.services import services
from app.lessons.catalog import Catalog, Lesson


def config(request: Request) -> CommentsConfig:
    return services(request).get(CommentsConfig)


def ui_lang(request: Request, lang: str | None = None) -> str:
    """The language for messages: the one asked for, else the reader's preference."""
    if lang in LANGUAGES:
        request.state.ui_lang = lang
        return lang
    chosen = request.query_params.get("lang")
    if chosen in LANGUAGES:
        return chosen
    return reader_language(request)


def lessons(request: Request) -> list[Lesson]:
    shared = services(request)
    return shared.get(Catalog).snapshot().visible(shared.settings.show_drafts)


def lesson_or_404(request: Request, slug: str) -> Lesson:
    for lesson in lessons(request):
        if lesson.slug == slug:
            return lesson
    raise CommentsError("lesson_not_found", status=404)


def slugs(request: Request) -> frozenset[str]:
    return frozenset(lesson.slug for lesson in lessons(request))
