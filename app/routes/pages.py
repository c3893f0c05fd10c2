"""The HTML pages: course index and lesson pages, per language.

Lesson HTML is rendered once per file version (LessonText cache) and whole pages once per
catalog snapshot (PageCache); a request does a few dictionary lookups, renders nothing for
a visitor, and bumps an in-memory view counter.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from app.accounts.auth import SESSION_COOKIE
from app.core.bodies import make_router
from app.core.page_cache import STRIP_MARKER, CachedPage, page_response
from app.core.services import services
from app.i18n import gettext_for
from app.lessons.catalog import Catalog, Lesson
from app.lessons.check import check_course
from app.lessons.exercises import ExerciseInfoCache
from app.lessons.guide import guide_html
from app.lessons.measured import ResultsStore
from app.lessons.preview import preview_auth, show_drafts
from app.lessons.prose import structure
from app.lessons.said import in_language
from app.progress.learner import LearnerState, visitor_state
from app.progress.page_state import ReaderView, repeat_view, signed_in_view
from app.progress.reader_pages import reader_key
from app.rendering.markdown import MEASURED_PATTERN, render_markdown
from app.stats import ViewCounter
from app.templating import STATIC_DIR, page_context

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# The two hot routes are matched first (see factory.py); the catch-all /{lang} goes last so
# that it never shadows other single-segment routes.
router = make_router()
fallback_router = make_router()


def _english_section_ids(lesson: Lesson, text_lang: str) -> list[tuple[int, str]] | None:
    """The English text's section ids, which the other language's sections take: one id per section
    in both languages (a language switch or a shared link lands on the same section)."""
    english = lesson.texts.get("en")
    if text_lang == "en" or english is None:
        return None
    rendered = english._rendered.get("en")
    if rendered is None:
        rendered = english._rendered["en"] = render_markdown(english.body, "en")
    return [(level, section_id) for level, section_id, _ in rendered.headings]


def _body_html(request: Request, lesson: Lesson, lang: str) -> tuple[str, list[tuple[int, str, str]], str, bool]:
    """Rendered body (cached per file version and UI language) with measured tables filled in."""
    text, fallback = lesson.text(lang)
    rendered = text._rendered.get(lang)
    if rendered is None:
        rendered = text._rendered[lang] = render_markdown(text.body, lang, _english_section_ids(lesson, text.lang))
    html = rendered.html
    if rendered.measured:
        results = services(request).get(ResultsStore)
        html = MEASURED_PATTERN.sub(lambda m: results.html(m.group(1), lang), html)
    return html, rendered.headings, text.lang, fallback


def _strip(request: Request, lang: str, learner: LearnerState, lesson_slugs: list[str]) -> bytes:
    def build() -> str:
        context = page_context(lang, "/", services(request).settings.site_name)
        context.update(learner=learner, lesson_slugs=lesson_slugs)
        return services(request).templates.get_template("partials/strip.html").render(context)

    return services(request).page_cache.strip((lang, learner, tuple(lesson_slugs)), build)


def _respond(request: Request, page: CachedPage, strip: bytes) -> Response:
    return page_response(page, strip, request.headers.get("accept-encoding"))


async def _reader_view(request: Request, lang: str, lessons: list[Lesson],
                       lesson: Lesson | None = None) -> ReaderView | None:
    """The signed-in reader's view, or None. Visitors (no session cookie) skip the thread hop."""
    if SESSION_COOKIE not in request.cookies:
        return None
    if services(request).engine.dialect.name == "sqlite":
        # A repeat view is one read of an in-process database: cheaper on the loop than the
        # thread hand-off (measured with wrk + py-spy). Other databases wait
        # on the network, so they always go through the threadpool.
        view = repeat_view(request, lang, lessons, lesson)
        if view is not None:
            return view or None
    return await run_in_threadpool(signed_in_view, request, lang, lessons, lesson)


def _respond_signed_in(request: Request, lang: str, view: ReaderView, build: Callable[[dict[str, Any]], str],
                       slugs: list[str], key: tuple[object, ...], deps: tuple[object, ...]) -> Response:
    """A signed-in reader's page is rendered for them (header, CSRF token, announcements) and kept
    per reader (reader_pages: same page, deps, user row and session -> same bytes); never shared."""
    reader = reader_key(view.context)
    if reader is None:  # announcements are shown once: render, do not keep
        before, _, after = build(view.context).partition(STRIP_MARKER)
        page = CachedPage((), before.encode(), after.encode())
    else:
        page = services(request).reader_pages.page((key, reader), deps, lambda: build(view.context))
    response = _respond(request, page, _strip(request, lang, view.learner, slugs))
    response.headers["Cache-Control"] = "private, no-store"
    return response


@fallback_router.get("/{lang:lang}", include_in_schema=False)
async def language_root(lang: str) -> RedirectResponse:
    return RedirectResponse(f"/{lang}/", status_code=308)


@router.api_route("/{lang:lang}/", methods=["GET", "HEAD"])
async def course_index(lang: str, request: Request) -> Response:
    shared = services(request)
    snapshot = shared.get(Catalog).snapshot()
    drafts = await show_drafts(request, snapshot)  # instructors and admins only
    lessons = snapshot.visible(drafts)
    slugs = [lesson.slug for lesson in lessons]

    def build(reader: dict[str, Any] | None = None) -> str:
        entries: list[dict[str, Any]] = []
        further: list[dict[str, Any]] = []
        for lesson in lessons:
            text, fallback = lesson.text(lang)
            (further if lesson.meta.track == "further" else entries).append(
                {"lesson": lesson, "title": text.title, "summary": text.summary, "fallback": fallback})
        context = page_context(lang, "/", shared.settings.site_name)
        context.update(entries=entries, further=further, strip_html=Markup(STRIP_MARKER),
                       total_minutes=sum(entry["lesson"].minutes for entry in entries))
        context.update(reader or {})
        return shared.templates.get_template("index.html").render(context)

    view = await _reader_view(request, lang, lessons)
    if view is not None:
        return _respond_signed_in(request, lang, view, build, slugs, ("index", lang, drafts), (snapshot,))
    page = shared.page_cache.page(("index", lang, drafts), (snapshot,), build)
    return _respond(request, page, _strip(request, lang, visitor_state(len(lessons), lang), slugs))


@router.api_route("/{lang:lang}/lessons/{slug}", methods=["GET", "HEAD"])
async def lesson_page(lang: str, slug: str, request: Request) -> Response:
    if len(slug) > 80 or not SLUG.match(slug):
        raise HTTPException(status_code=404)
    shared = services(request)
    snapshot = shared.get(Catalog).snapshot()
    lesson = snapshot.get(slug)
    if lesson is None:
        raise HTTPException(status_code=404)
    drafts = await show_drafts(request, snapshot)  # a draft is a 404 for all but instructors and admins
    lessons = snapshot.visible(drafts)
    if lesson not in lessons:
        raise HTTPException(status_code=404)
    exercise = shared.get(ExerciseInfoCache).get(lesson.meta.exercise) if lesson.meta.exercise else None
    deps = (snapshot, shared.get(ResultsStore).version, exercise)

    def build(reader: dict[str, Any] | None = None) -> str:
        position = lessons.index(lesson)
        text, _ = lesson.text(lang)
        body, headings, content_lang, fallback = _body_html(request, lesson, lang)
        neighbours: dict[str, dict[str, Any]] = {}
        for key, index in (("prev", position - 1), ("next", position + 1)):
            if 0 <= index < len(lessons):
                other = lessons[index]
                neighbours[key] = {"lesson": other, "title": other.text(lang)[0].title}
        context = page_context(lang, f"/lessons/{lesson.slug}", shared.settings.site_name)
        context.update(
            lesson=lesson, text=text, body=body, headings=headings, content_lang=content_lang,
            fallback=fallback, total=len(lessons), neighbours=neighbours, strip_html=Markup(STRIP_MARKER),
            exercise_id=lesson.meta.exercise, exercise=exercise, report_url=shared.settings.report_url,
        )
        context.update(reader or {})
        return shared.templates.get_template("lesson.html").render(context)

    view = await _reader_view(request, lang, lessons, lesson)
    if view is not None:
        shared.get(ViewCounter).hit(lesson.slug, lang)
        return _respond_signed_in(request, lang, view, build, [item.slug for item in lessons],
                                  ("lesson", lang, slug, drafts), deps)
    page = shared.page_cache.page(("lesson", lang, slug, drafts), deps, build)
    shared.get(ViewCounter).hit(lesson.slug, lang)
    return _respond(request, page, _strip(request, lang, visitor_state(len(lessons), lang), [item.slug for item in lessons]))


@router.get("/{lang:lang}/authoring", include_in_schema=False)
async def authoring(lang: str, request: Request) -> HTMLResponse:
    """Instructors' preview of the whole catalog: every lesson (drafts too), the catalog's
    problems, and the authoring guide. A 404 for everyone else."""
    auth = await run_in_threadpool(preview_auth, request)
    if auth is None:
        raise HTTPException(status_code=404)
    shared = services(request)
    snapshot = shared.get(Catalog).snapshot()
    root = shared.settings.lessons_dir.parent
    entries: list[dict[str, Any]] = []
    for lesson in snapshot.lessons:
        text, fallback = lesson.text(lang)
        # The measures `lessons check` applies: English prose words, Korean Hangul syllables.
        prose = {k: structure(t.body, t.body_line) for k, t in lesson.texts.items()}
        entries.append({"lesson": lesson, "title": text.title, "fallback": fallback, "languages": sorted(lesson.texts),
                        "prose": {k: (s.words if k == "en" else s.hangul) for k, s in prose.items()}})

    def shown(path: Path) -> str:
        try:
            return str(path.relative_to(root))
        except ValueError:
            return str(path)

    # the same list as `lessons check` (its errors are errors here too), without the NVRTC compile
    report = await run_in_threadpool(check_course, shared.settings.lessons_dir, STATIC_DIR, shared.settings.kernels_dir,
                                     compile_cuda=False)
    gettext = gettext_for(lang)
    problems = [{"where": f"{shown(p.file)}:{p.line}", "severity": p.severity, "message": in_language(p.message, gettext)}
                for p in report.problems]
    context = page_context(lang, "/authoring", shared.settings.site_name)
    guide = await run_in_threadpool(guide_html, shared.settings.lessons_dir, lang)
    context.update(user=auth.user, csrf_token=auth.csrf_token, entries=entries, problems=problems,
                   guide=Markup(guide) if guide else None)
    html = shared.templates.get_template("authoring.html").render(context)
    return HTMLResponse(html, headers={"Cache-Control": "private, no-store"})
