"""HTTP for the panel. The lesson page itself stays cached and identical for every visitor; the
panel's JavaScript asks these routes for the exercise (starter, launch defaults) and for
server-rendered fragments (result, history, diff) in the page's language."""
from __future__ import annotations

import json
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from app.accounts.auth import Auth
from app.accounts.deps import AuthDep, SessionDep, WriterDep
from app.accounts.roles import Permission, can
from app.core.answers import checked
from app.core.bodies import make_router
from app.core.config import LANGUAGES
from app.core.fragments import opened_as_page
from app.core.ids import RowId, RowIdQuery
from app.core.services import services
from app.lessons.catalog import Catalog
from app.panel import overridden, schemas
from app.panel.history import diff_lines, own_history
from app.panel.insight import sass_diff
from app.panel.starters import KOREAN_COMMENTS, load_translations, translate_comments
from app.panel.submission import present_submission
from app.rendering.code import highlighted_source
from app.submissions.models import Submission
from app.submissions.routes import _limits as submission_limits
from app.submissions.runtime import SubmissionsRuntime
from app.templating import page_context

api_router = make_router(prefix="/api/panel", tags=["panel"])
router = make_router(include_in_schema=False)


def exercise_config(exercise_id: str) -> dict[str, Any] | None:
    """What the editor needs: the starter (``starter_ko``: the same code with the comments of
    starter.ko.yaml, app/panel/starters.py), launch defaults and the limits to validate against."""
    from kernels.engine import UnknownExercise, load_exercise
    from kernels.engine.launch import SM90

    try:
        ex = load_exercise(exercise_id)
        starter = ex.starter_path.read_text(encoding="utf-8") if ex.starter_path.exists() else ""
        starter_ko = translate_comments(starter, load_translations(ex.starter_path.with_name(KOREAN_COMMENTS)))
    except (UnknownExercise, OSError, ValueError):
        return None
    return {"exercise": ex.id, "starter": starter, "starter_ko": starter_ko,
            "launch_defaults": ex.launch_defaults.as_request(),
            "declaration": ex.kernel.declaration(),
            "limits": {"max_threads": SM90.max_threads_per_block, "max_block": list(SM90.max_block),
                       "max_smem": SM90.max_shared_per_block_optin, "max_tile": 4096}}


@api_router.get("/exercises/{exercise_id}", response_model=schemas.ExerciseConfig)
async def get_exercise(exercise_id: str) -> JSONResponse:
    """Starter code, launch defaults and limits for one exercise (public; cached briefly)."""
    if len(exercise_id) > 64:
        raise HTTPException(404)
    config = await run_in_threadpool(exercise_config, exercise_id)
    if config is None:
        raise HTTPException(404)
    return checked(schemas.ExerciseConfig, config, headers={"Cache-Control": "public, max-age=60"})


def _to_lesson(request: Request, lang: str, exercise_id: str, query: str) -> RedirectResponse:
    """A fragment opened as a page: the lesson whose panel shows it (or the course)."""
    shared = services(request)
    slug = next((lesson.slug for lesson in shared.get(Catalog).snapshot().visible(shared.settings.show_drafts)
                 if lesson.meta.exercise == exercise_id), None)
    return RedirectResponse(f"/{lang}/lessons/{slug}{query}#exercise" if slug else f"/{lang}/", status_code=303)


def _fragment(request: Request, lang: str, template: str, **values: Any) -> HTMLResponse:
    context = page_context(lang, "/", services(request).settings.site_name)
    context.update(values)
    html = services(request).templates.get_template(template).render(context)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


async def _visible_panel(request: Request, sub_id: int, lang: str, auth: Auth) -> dict[str, Any]:
    """The panel's view of one submission for its owner (graders: any); 404 for anyone else.
    ``source`` and ``launch`` are the submission's own, so the panel shows the code the result is about."""
    def load() -> dict[str, Any] | None:
        with services(request).session_factory() as db:
            row = db.get(Submission, sub_id)
            if row is None or (row.user_id != auth.user.id and not can(auth.user.role, Permission.REVIEW_SUBMISSIONS)):
                return None
            panel = present_submission(db, row, lang, owner_view=row.user_id == auth.user.id,
                                       gpu_budget_seconds=services(request).settings.gpu_budget_seconds)
            return {**panel, "source": row.source, "launch_json": row.launch, "exercise": row.exercise_id}

    panel = await run_in_threadpool(load)
    if panel is None:
        raise HTTPException(404)
    return panel


@router.get("/{lang:lang}/panel/submissions/{sub_id}")
async def result_fragment(lang: str, sub_id: RowId, request: Request, auth: AuthDep) -> Response:
    """The result with the submission's own code beside it (read-only, "Load into the editor")."""
    panel = await _visible_panel(request, sub_id, lang, auth)
    if opened_as_page(request):
        return _to_lesson(request, lang, panel["exercise"], f"?submission={sub_id}")
    source_html = Markup(highlighted_source(panel["source"], f"sub{sub_id}-line"))
    return _fragment(request, lang, "panel/submission.html", r=panel, source_html=source_html)


@api_router.get("/submissions/{sub_id}", response_model=schemas.PanelSubmission)
async def result_json(sub_id: RowId, request: Request, auth: AuthDep, lang: str = "") -> JSONResponse:
    """What the exercise panel shows of one of your submissions (graders: any), in ?lang=ko|en: the
    verdict the learner sees (a grader's override wins, with the automatic check's beside it),
    the speed tiers it earns, the XP it earns and the graders' notes."""
    lang = lang if lang in LANGUAGES else "en"

    panel = await _visible_panel(request, sub_id, lang, auth)
    return checked(schemas.PanelSubmission, overridden.panel_json(panel), headers={"Cache-Control": "no-store"})


@api_router.post("/submissions/{sub_id}/profile", status_code=202, response_model=schemas.ProfileQueued)
async def profile_submission(sub_id: RowId, request: Request, auth: WriterDep, db: SessionDep) -> dict[str, Any]:
    """"Profile this": the same kernel and launch again, graded as usual and with
    Nsight Compute counters where the grading host has ncu. A new submission of one's own: it
    counts against the job limits like any other."""
    from app.submissions import intake

    def store() -> int | None:
        row = db.get(Submission, sub_id)
        if row is None or row.user_id != auth.user.id:
            return None
        try:
            launch = json.loads(row.launch) if row.launch else None
        except ValueError:
            launch = None
        if not isinstance(launch, dict):
            config = exercise_config(row.exercise_id)
            launch = dict(config["launch_defaults"]) if config else {}
        new = intake.store(db, auth.user, row.exercise_id, intake.Request_(row.source, {**launch, "profile": True}),
                           submission_limits(request), enqueue=services(request).get(SubmissionsRuntime).enqueue)
        return new.id

    new_id = await run_in_threadpool(store)
    if new_id is None:
        raise HTTPException(404)
    services(request).get(SubmissionsRuntime).wake()
    return {"id": new_id}


@router.get("/{lang:lang}/panel/exercises/{exercise_id}/history")
async def history_fragment(lang: str, exercise_id: str, request: Request, auth: AuthDep) -> Response:
    if opened_as_page(request):
        return _to_lesson(request, lang, exercise_id, "")

    def load() -> list[dict[str, Any]]:
        with services(request).session_factory() as db:
            return own_history(db, auth.user.id, exercise_id[:64], lang)

    return _fragment(request, lang, "panel/history.html", items=await run_in_threadpool(load))


@router.get("/{lang:lang}/panel/diff")
async def diff_fragment(lang: str, a: RowIdQuery, b: RowIdQuery, request: Request, auth: AuthDep) -> HTMLResponse:
    """Diff of two of one's own submissions (graders: any two)."""

    def load() -> tuple[int, int, list[tuple[str, str]], dict[str, Any] | None] | None:
        with services(request).session_factory() as db:
            rows = [row for row in (db.get(Submission, a), db.get(Submission, b)) if row is not None]
            reviewer = can(auth.user.role, Permission.REVIEW_SUBMISSIONS)
            if len(rows) < 2 or any(r.user_id != auth.user.id and not reviewer for r in rows):
                return None
            old, new = sorted(rows, key=lambda r: r.id)
            return (old.id, new.id, diff_lines(old.source, new.source, f"#{old.id}", f"#{new.id}"),
                    sass_diff(old.result, new.result, f"#{old.id}", f"#{new.id}", lang))

    loaded = await run_in_threadpool(load)
    if loaded is None:
        raise HTTPException(404)
    old_id, new_id, lines, sdiff = loaded
    return _fragment(request, lang, "panel/diff.html", old_id=old_id, new_id=new_id, lines=lines, sdiff=sdiff)
