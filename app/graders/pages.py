"""The graders' dashboard pages (HTML): the filtered list and one submission with its source,
full result, audit trail and the note / override / re-run forms (plain POST forms with the CSRF
field, so the dashboard works without JavaScript)."""
from __future__ import annotations

from urllib.parse import urlencode

from fastapi import Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from app.accounts.auth import Auth
from app.accounts.deps import ReviewerDep, csrf_protect
from app.accounts.models import User
from app.accounts.views import account_context, render
from app.classes.models import CourseClass
from app.core import vocabulary as vocab
from app.core.bodies import FORM_TEXT_BODY_LIMIT, make_router
from app.core.ids import RowId, row_id
from app.core.services import services
from app.graders import listing, reviews
from app.graders.api import act, exercise_titles, listing_query
from app.graders.messages import DONE, text
from app.panel.submission import present_submission
from app.rendering.code import highlighted_source
from app.submissions.models import Submission
from app.submissions.reviews import effective_verdict, reviews_for

router = make_router(include_in_schema=False)


def _exercises() -> list[str]:
    from kernels.engine import list_exercises

    try:
        return list_exercises()
    except Exception:
        return []


def _classes(request: Request) -> list[tuple[int, str]]:
    """Every class (id, "name · term"), for the filter that scopes these pages to one class's learners."""
    with services(request).session_factory() as db:
        rows = db.execute(select(CourseClass.id, CourseClass.name, CourseClass.term).order_by(CourseClass.name))
        return [(cid, f"{name} · {term}" if term else name) for cid, name, term in rows]


@router.get("/{lang:lang}/graders", dependencies=[Depends(listing_query)])
def dashboard(lang: str, request: Request, auth: ReviewerDep) -> HTMLResponse:
    filters = listing.Filters.parse(request.query_params)
    with services(request).session_factory() as db:
        rows = listing.list_rows(db, filters)
        for row in rows:
            row["speedups"] = {a: listing.export_record(row, with_result=False)[f"speedup_{a}"]
                               for a in ("naive", "tiled", "baseline")}
    query = urlencode(filters.query())
    context = account_context(request, lang, "/graders", auth)
    context.update(rows=rows, filters=filters, query=query, exercises=_exercises(), verdicts=list(vocab.VERDICTS),
                   classes=_classes(request),
                   exercise_title=exercise_titles(request, lang), flagged=sum(r["flagged"] for r in rows))
    return render(request, "graders/dashboard.html", context)


@router.get("/{lang:lang}/graders/stuck")
def stuck_page(lang: str, request: Request, auth: ReviewerDep) -> HTMLResponse:
    """Who is stuck: per exercise, learners with >= N failed attempts and no pass."""
    from app.graders import stuck

    min_failures = stuck.parse_min(request.query_params.get("min"))
    class_id = row_id(request.query_params.get("class"))
    with services(request).session_factory() as db:
        reports = stuck.report(db, min_failures=min_failures, class_id=class_id)
    context = account_context(request, lang, "/graders/stuck", auth)
    context.update(reports=reports, min_failures=min_failures, duration=stuck.fmt_duration, class_id=class_id,
                   classes=_classes(request),
                   history_url=lambda name, ex: stuck.history_url(lang, name, ex),
                   exercise_title=exercise_titles(request, lang))
    return render(request, "graders/stuck.html", context)


@router.get("/{lang:lang}/graders/submissions/{sub_id}")
def detail(lang: str, sub_id: RowId, request: Request, auth: ReviewerDep, done: str = "") -> HTMLResponse:
    return _detail(request, lang, sub_id, auth, done=done)


def _detail(request: Request, lang: str, sub_id: RowId, auth: Auth, *, done: str = "", error: str = "", status: int = 200,
            typed: dict[str, str] | None = None) -> HTMLResponse:
    """The submission page; after a refused form, ``typed`` (kind, reason, verdict) refills that form."""
    with services(request).session_factory() as db:
        row = db.get(Submission, sub_id)
        if row is None:
            raise HTTPException(404)
        learner = db.get(User, row.user_id)
        trail = reviews_for(db, [row.id])[row.id]
        panel = present_submission(db, row, lang)
        context = account_context(request, lang, f"/graders/submissions/{sub_id}", auth)
        context.update(sub=row, learner=learner, r=panel, trail=trail, source_html=Markup(highlighted_source(row.source)),
                       verdicts=vocab.OVERRIDE_VERDICTS, exercise_title=exercise_titles(request, lang),
                       effective=effective_verdict(row, trail), flags=listing.flags_of(reviews.result_of(row)),
                       done_text=text(DONE, done, lang) if done in DONE else "", error_text=error, typed=typed)
    return render(request, "graders/detail.html", context, status=status)


@router.post("/{lang:lang}/graders/submissions/{sub_id}/{kind}", max_body_size=FORM_TEXT_BODY_LIMIT)
async def act_form(lang: str, sub_id: RowId, kind: str, request: Request, auth: ReviewerDep,
                   reason: str = Form(""), verdict: str = Form("")) -> Response:
    await csrf_protect(request, auth)
    if kind not in DONE:
        raise HTTPException(404)
    try:
        await run_in_threadpool(act, request, auth, sub_id, kind, {"reason": reason, "verdict": verdict})
    except reviews.ReviewError as exc:
        if exc.code == "not_found":
            raise HTTPException(404) from exc
        # The page answers the POST (the typed text comes back in its form); site.js puts the
        # submission's own address back in the address bar, and a GET of this address leads there too.
        return await run_in_threadpool(_detail, request, lang, sub_id, auth, error=exc.message(lang),
                                       status=exc.status, typed={"kind": kind, "reason": reason, "verdict": verdict})
    return RedirectResponse(f"/{lang}/graders/submissions/{sub_id}?done={kind}", status_code=303)


@router.get("/{lang:lang}/graders/submissions/{sub_id}/{kind}")
def act_address(lang: str, sub_id: RowId, kind: str, auth: ReviewerDep) -> RedirectResponse:
    """A form's address opened again (a reload after an error, a copied link): the submission's page."""
    if kind not in DONE:
        raise HTTPException(404)
    return RedirectResponse(f"/{lang}/graders/submissions/{sub_id}", status_code=303)
