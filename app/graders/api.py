"""The graders' API: the same data as the dashboard, for a personal API token (Bearer) or the
browser session. Reading is GET; note/override/re-run are POST (CSRF for cookie callers)."""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from app.accounts.auth import Auth
from app.accounts.deps import ReviewerDep, csrf_protect
from app.accounts.models import User
from app.core import vocabulary as vocab
from app.core.answers import checked
from app.core.bodies import FORM_TEXT_BODY_LIMIT, make_router
from app.core.ids import OptionalDayQuery, RowId, row_id
from app.core.jsonbody import JsonBodyError, loads_strict
from app.core.languages import api_lang
from app.core.openapi import CSVResponse
from app.core.services import services
from app.graders import listing, reviews, schemas
from app.lessons.exercises import ExerciseInfoCache
from app.submissions.models import Submission
from app.submissions.runtime import SubmissionsRuntime

router = make_router(prefix="/api/graders", tags=["graders"])


def exercise_titles(request: Request, lang: str) -> Callable[[str], str]:
    """An exercise's title in the reader's language (its id only when the spec is gone)."""
    def title(exercise_id: str) -> str:
        info = services(request).get(ExerciseInfoCache).get(exercise_id)
        return (info.title.get(lang) or info.title.get("en") or exercise_id) if info else exercise_id
    return title


async def reviewer_with_csrf(request: Request, auth: ReviewerDep) -> Auth:
    """401 signed out, 403 for learners, then cookie callers must carry the CSRF token."""
    await csrf_protect(request, auth)
    return auth


ReviewerWriterDep = Annotated[Auth, Depends(reviewer_with_csrf)]


def listing_query(exercise: str = Query("", max_length=200), learner: str = Query("", max_length=200),
                  verdict: str = Query("", max_length=200),
                  from_: Annotated[OptionalDayQuery, Query(alias="from")] = None, to: OptionalDayQuery = None,
                  class_: str = Query("", alias="class", max_length=20, description="only this class's learners")) -> None:
    """Documents the filters in the OpenAPI schema (so the API fuzzer, tests/hardening/test_api_fuzz.py,
    drives them too) and refuses a day that is no date or out of range with a 422 in the reader's
    language; listing.Filters.parse reads them (and forgives the text fields)."""


def _records(request: Request, with_result: bool) -> list[dict[str, Any]]:
    filters = listing.Filters.parse(request.query_params)
    with services(request).session_factory() as db:
        return [listing.export_record(r, with_result=with_result) for r in listing.list_rows(db, filters)]


@router.get("/submissions", dependencies=[Depends(listing_query)], response_model=schemas.GraderList)
async def list_json(request: Request, auth: ReviewerDep, download: str = Query("", max_length=8)) -> JSONResponse:
    """Every submission matching ?exercise=&learner=&verdict=&from=&to= (flagged first), with
    the engine's Result, the source and the audit trail. Add ?download=1 for a file."""
    records = await run_in_threadpool(_records, request, True)
    headers = {"Cache-Control": "no-store"}
    if request.query_params.get("download"):
        headers["Content-Disposition"] = 'attachment; filename="submissions.json"'
    return checked(schemas.GraderList, {"submissions": records, "count": len(records)}, headers=headers)


@router.get("/submissions.csv", response_class=CSVResponse, dependencies=[Depends(listing_query)])
async def list_csv(request: Request, auth: ReviewerDep) -> Response:
    """The same rows as CSV (one line per submission, no source). Beside each code column its label
    in the requester's language (?lang=ko|en, else the browser's): exercise_title, status_label,
    state_label, verdict_label, effective_verdict_label, flags_labels, message_label."""
    records = await run_in_threadpool(_records, request, False)
    lang = api_lang(request)
    body = listing.to_csv(records, lang, exercise_titles(request, lang))
    return Response(body, media_type="text/csv; charset=utf-8",
                    headers={"Cache-Control": "no-store",
                             "Content-Disposition": 'attachment; filename="submissions.csv"'})


@router.get("/stuck.csv", response_class=CSVResponse)
async def stuck_csv(request: Request, auth: ReviewerDep, min: str = Query("", max_length=20),
                    exercise: str = Query("", max_length=200), class_: str = Query("", alias="class", max_length=20)) -> Response:
    """Who is stuck, per exercise (?min=N failed attempts, ?exercise=, ?class=ID for one class's learners), as CSV."""
    from app.graders import stuck

    def load() -> list[stuck.ExerciseReport]:
        with services(request).session_factory() as db:
            return stuck.report(db, min_failures=stuck.parse_min(request.query_params.get("min")),
                                exercise=(request.query_params.get("exercise") or "")[:64],
                                class_id=row_id(request.query_params.get("class")))

    lang = api_lang(request)
    body = stuck.to_csv(await run_in_threadpool(load), lang, exercise_titles(request, lang))
    return Response(body, media_type="text/csv; charset=utf-8",
                    headers={"Cache-Control": "no-store", "Content-Disposition": 'attachment; filename="stuck.csv"'})


async def _body(request: Request) -> dict[str, Any]:
    try:
        data = loads_strict(await request.body() or b"{}")
    except JsonBodyError:
        data = None
    if not isinstance(data, dict):
        raise reviews.ReviewError("bad_json", status=400)
    return data


def act(request: Request, auth: Auth, sub_id: RowId, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """One grader action, committed; returns the audit entry. Shared by the API and the forms."""
    repeated = False
    with services(request).session_factory() as db:
        grader = db.get_one(User, auth.user.id)  # the signed-in caller: their row exists
        if kind == "note":
            entry = reviews.add_note(db, grader, sub_id, str(data.get("reason") or ""))
        elif kind == "override":
            from app.submissions.runtime import lesson_slugs_of

            entry, created = reviews.override_once(db, grader, sub_id, str(data.get("verdict") or ""),
                                                   str(data.get("reason") or ""), lesson_slugs_of(request.app)())
            repeated = not created
        else:
            entry = reviews.rerun(db, grader, sub_id, str(data.get("reason") or ""))
            enqueue = services(request).get(SubmissionsRuntime).enqueue
            if enqueue is not None:  # cluster mode: the row waits again only together with its job
                enqueue(db, db.get_one(Submission, sub_id))  # rerun() found it
        db.commit()
        out = reviews.review_json(entry)
        if kind == "override" and repeated:
            out["repeated"] = True  # the submission had this verdict from an override already: nothing new
    if kind == "rerun":
        runtime = services(request).get(SubmissionsRuntime)
        runtime.wake()
        runtime.hub.notify(sub_id)
    return out


def _make(kind: str) -> Callable[[RowId, Request, Auth], Awaitable[JSONResponse]]:
    async def handler(sub_id: RowId, request: Request, auth: ReviewerWriterDep) -> JSONResponse:
        data = await _body(request)  # a refusal (ReviewError) is answered by app/routes/errors.py
        entry = await run_in_threadpool(act, request, auth, sub_id, kind, data)
        repeated = entry.pop("repeated", False)
        return checked(schemas.ReviewDone, {"review": entry, "repeated": repeated}, status_code=200 if repeated else 201)
    handler.__name__ = f"{kind}_submission"
    handler.__doc__ = {"note": "Add a note (JSON {\"reason\": ...}); the learner sees it.",
                       "override": "Override the verdict (JSON {\"verdict\": ..., \"reason\": ...}); XP, speed tiers "
                                   "and achievements follow and the learner is notified. 200 with repeated: true when "
                                   "an override had set this verdict already (nothing new happens).",
                       "rerun": "Queue the submission for grading again (JSON {\"reason\": ...})."}[kind]
    return handler


def _action_body(kind: str) -> dict[str, Any]:
    """The JSON body each action reads (``_body`` and app/graders/reviews.py check it, with their own
    messages), described for the OpenAPI schema: a reason of 1 to 2,000 characters that is not only
    spaces, and for an override one of the verdicts a grader may set."""
    properties: dict[str, Any] = {"reason": {"type": "string", "minLength": 1, "maxLength": reviews.MAX_REASON, "pattern": r"\S"}}
    if kind == "override":
        properties["verdict"] = {"type": "string", "enum": list(vocab.OVERRIDE_VERDICTS)}
    schema = {"type": "object", "properties": properties, "required": sorted(properties)}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


for _kind in ("note", "override", "rerun"):
    router.add_api_route(f"/submissions/{{sub_id}}/{_kind}", _make(_kind), methods=["POST"], status_code=201,
                         response_model=schemas.ReviewDone, max_body_size=FORM_TEXT_BODY_LIMIT,
                         responses={200: {"model": schemas.ReviewDone, "description": "The same override again: "
                                          "nothing new (repeated: true)"}} if _kind == "override" else None,
                         openapi_extra=_action_body(_kind))
