"""/{lang}/ladder: every rung of the GEMM ladder with its source, what it teaches, its measured
numbers and its notes. Visitors get a page cached per language until a rung file, rungs.yaml,
NOTES.md or a results file changes; a signed-in reader's page is rendered for them."""
from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.accounts.auth import SESSION_COOKIE
from app.core.bodies import make_router
from app.core.fragments import opened_as_page
from app.core.page_cache import page_response
from app.core.services import services
from app.ladder.embed import content_store
from app.ladder.page import page_context_for, rung_source_html
from app.lessons.catalog import Catalog
from app.lessons.measured import ResultsStore
from app.progress.page_state import signed_in_view

router = make_router()


@router.api_route("/{lang:lang}/ladder", methods=["GET", "HEAD"])
async def ladder_page(lang: str, request: Request) -> Response:
    shared = services(request)
    results = shared.get(ResultsStore)  # re-read at most once per check interval (as for lesson pages)
    content = content_store(shared.settings.kernels_dir / "ladder").get()

    def build(reader: dict[str, Any] | None = None) -> str:
        context = page_context_for(lang, content, results.documents, shared.settings.site_name)
        if context.get("caption"):
            others = results.others("ladder", lang)  # the other GPUs' ladder runs, named beside these
            context["caption"] = context["caption"] + (f" · {others}" if others else "")
        context.update(reader or {})
        return shared.templates.get_template("ladder/page.html").render(context)

    view = None
    if SESSION_COOKIE in request.cookies:
        lessons = shared.get(Catalog).snapshot().visible(shared.settings.show_drafts)
        view = await run_in_threadpool(signed_in_view, request, lang, lessons)
    if view is not None:
        response = Response(build(view.context), media_type="text/html; charset=utf-8")
        response.headers["Cache-Control"] = "private, no-store"
        return response
    page = shared.page_cache.page(("ladder", lang), (content, results.version), build)
    return page_response(page, b"", request.headers.get("accept-encoding"))


@router.get("/{lang:lang}/ladder/source/{stem}")
async def rung_source(lang: str, stem: str, request: Request) -> Response:
    """One rung's highlighted source (an HTML fragment the ladder page inserts when its source is opened)."""
    content = content_store(services(request).settings.kernels_dir / "ladder").get()
    rung = next((r for r in content.rungs if r.stem == stem), None)
    if rung is None:
        raise HTTPException(status_code=404)
    if opened_as_page(request):
        return RedirectResponse(f"/{lang}/ladder#{rung.anchor}", status_code=303)
    return HTMLResponse(rung_source_html(rung, lang), headers={"Cache-Control": "public, max-age=300",
                                                               "Vary": "Sec-Fetch-Dest"})
