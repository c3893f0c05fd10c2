"""The HTML pages: course index and lesson pages, per language."""
from __future__ import annotations

import re
import time

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.core.config import LANGUAGES
from app.lessons.catalog import Lesson
from app.progress.learner import visitor_state
from app.rendering.markdown import MEASURED_PATTERN, render_markdown
from app.templating import page_context

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
router = APIRouter()


def _check_lang(lang: str) -> None:
    if lang not in LANGUAGES:
        raise HTTPException(status_code=404)


def _render(request: Request, template: str, context: dict, status: int = 200) -> HTMLResponse:
    html = request.app.state.templates.get_template(template).render(context)
    return HTMLResponse(html, status_code=status)


def _body_html(request: Request, lesson: Lesson, lang: str) -> tuple[str, list, str, bool]:
    """Rendered body (cached per file version and UI language) with measured tables filled in."""
    text, fallback = lesson.text(lang)
    rendered = text._rendered.get(lang)
    if rendered is None:
        rendered = text._rendered[lang] = render_markdown(text.body, lang)
    html = rendered.html
    if rendered.measured:
        results = request.app.state.results
        now = time.monotonic()
        if now - request.app.state.results_checked_at > request.app.state.settings.catalog_check_interval:
            results.refresh()
            request.app.state.results_checked_at = now
        html = MEASURED_PATTERN.sub(lambda m: results.html(m.group(1), lang), html)
    return html, rendered.headings, text.lang, fallback


@router.get("/{lang}", include_in_schema=False)
async def language_root(lang: str):
    _check_lang(lang)
    return RedirectResponse(f"/{lang}/", status_code=308)


@router.get("/{lang}/", response_class=HTMLResponse)
async def course_index(lang: str, request: Request):
    _check_lang(lang)
    state = request.app.state
    snapshot = state.catalog.snapshot()
    lessons = snapshot.visible(state.settings.show_drafts)
    entries = []
    for lesson in lessons:
        text, fallback = lesson.text(lang)
        entries.append({"lesson": lesson, "title": text.title, "summary": text.summary, "fallback": fallback})
    context = page_context(lang, "/", state.settings.site_name)
    context.update(entries=entries, learner=visitor_state(len(lessons), lang),
                   total_minutes=sum(l.minutes for l in lessons), lesson_slugs=[l.slug for l in lessons])
    return _render(request, "index.html", context)


@router.get("/{lang}/lessons/{slug}", response_class=HTMLResponse)
async def lesson_page(lang: str, slug: str, request: Request):
    _check_lang(lang)
    if len(slug) > 80 or not SLUG.match(slug):
        raise HTTPException(status_code=404)
    state = request.app.state
    snapshot = state.catalog.snapshot()
    lessons = snapshot.visible(state.settings.show_drafts)
    lesson = snapshot.get(slug)
    if lesson is None or lesson not in lessons:
        raise HTTPException(status_code=404)
    position = lessons.index(lesson)
    text, fallback = lesson.text(lang)
    body, headings, content_lang, fallback = _body_html(request, lesson, lang)
    neighbours = {}
    for key, index in (("prev", position - 1), ("next", position + 1)):
        if 0 <= index < len(lessons):
            other = lessons[index]
            neighbours[key] = {"lesson": other, "title": other.text(lang)[0].title}
    exercise = state.exercises.get(lesson.meta.exercise) if lesson.meta.exercise else None
    state.views.hit(lesson.slug, lang)
    context = page_context(lang, f"/lessons/{lesson.slug}", state.settings.site_name)
    context.update(
        lesson=lesson, text=text, body=body, headings=headings, content_lang=content_lang,
        fallback=fallback, total=len(lessons), neighbours=neighbours,
        learner=visitor_state(len(lessons), lang), exercise_id=lesson.meta.exercise,
        exercise=exercise, report_url=state.settings.report_url,
        lesson_slugs=[l.slug for l in lessons],
    )
    return _render(request, "lesson.html", context)
