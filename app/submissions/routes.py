"""The submissions API. Cookie callers send X-CSRF-Token on POST; token callers send
``Authorization: Bearer mkc_...``. Every refusal is JSON: ``{error, message, params}``."""
from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, StreamingResponse
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.accounts.auth import Auth
from app.accounts.deps import AuthDep, SessionDep, WriterDep
from app.accounts.roles import Permission, can
from app.core.bodies import make_router
from app.core.clock import utcnow
from app.core.ids import RowId
from app.core.languages import api_lang
from app.core.openapi import EventStreamResponse
from app.core.services import services
from app.submissions import events, intake, queue
from app.submissions.gpu_budget import GpuWait, waiting_row
from app.submissions.intake import MAX_BODY_BYTES
from app.submissions.messages import SubmissionError
from app.submissions.models import Submission
from app.submissions.reviews import reviews_for
from app.submissions.runtime import SubmissionsRuntime
from app.submissions.schemas import ErrorBody, SubmissionCreated, SubmissionList, SubmissionRequest, SubmissionView
from app.submissions.views import submission_json

router = make_router(prefix="/api", tags=["submissions"])
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {code: {"model": ErrorBody}
                                                    for code in (400, 401, 403, 404, 413, 415, 422, 429)}


def _gpu_wait(request: Request, db: Session, row: Submission) -> GpuWait | None:
    """Why a queued row is not taken yet when its learner used their hourly GPU time."""
    return waiting_row(db, row, services(request).settings.gpu_budget_seconds, utcnow())


def _limits(request: Request) -> intake.Limits:
    s = services(request).settings
    return intake.Limits(s.submission_max_in_flight, s.submission_per_hour, s.submission_per_day)


@router.post("/exercises/{exercise_id}/submissions", status_code=202, max_body_size=MAX_BODY_BYTES, response_model=SubmissionCreated,
             responses=ERROR_RESPONSES,
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
                 "schema": SubmissionRequest.model_json_schema(ref_template="#/components/schemas/{model}"),
                 "example": SubmissionRequest.model_json_schema()["examples"][0]}}}})
async def create_submission(exercise_id: str, request: Request, auth: WriterDep, db: SessionDep) -> JSONResponse:
    """Store a kernel for grading and answer at once (202) with its id.

    The row is stored before anything else happens; a dispatcher grades it later. Oversized
    (> 64 KiB of source) or malformed requests are refused with a 4xx and not stored. Launch
    requests that are well-formed but over the GPU's limits are graded (RUNTIME_ERROR result).
    """
    await run_in_threadpool(db.commit)  # auth is read: hold no connection while the body arrives
    raw = await intake.read_body(request)
    body = intake.parse_body(raw, request.headers.get("content-type", ""))
    if len(exercise_id) > 64 or not await run_in_threadpool(intake.exercise_exists, exercise_id):
        raise SubmissionError("unknown_exercise", {"exercise": exercise_id[:64]}, status=404)

    submissions: SubmissionsRuntime = services(request).get(SubmissionsRuntime)

    def store() -> tuple[Submission, int | None, GpuWait | None]:
        row = intake.store(db, auth.user, exercise_id, body, _limits(request), enqueue=submissions.enqueue)
        return row, queue.position(db, row), _gpu_wait(request, db, row)

    row, position, wait = await run_in_threadpool(store)
    submissions.wake()
    view = submission_json(row, lang=api_lang(request), position=position, include_source=False, include_result=False,
                           gpu_wait=wait)
    return JSONResponse({k: view[k] for k in ("id", "state", "state_text", "position", "links")}, status_code=202,
                        headers={"Location": view["links"]["self"]})


def _load_visible(request: Request, auth: Auth, sub_id: RowId, db: Session) -> tuple[dict[str, Any], Submission]:
    row = db.get(Submission, sub_id, populate_existing=True)
    reviewer = can(auth.user.role, Permission.REVIEW_SUBMISSIONS)
    if row is None or (row.user_id != auth.user.id and not reviewer):
        db.commit()  # ends the read (commit, unlike rollback, keeps auth.user loaded)
        raise SubmissionError("not_found", status=404)  # never tell whether someone else's id exists
    position = queue.position(db, row)
    view = submission_json(row, lang=api_lang(request), position=position, include_source=True,
                           reviews=reviews_for(db, [row.id])[row.id], gpu_wait=_gpu_wait(request, db, row),
                           seconds_per_job=queue.seconds_per_job(db) if position else None)
    db.commit()  # end the read: the connection goes back to the pool at once
    return view, row


@router.get("/submissions/{sub_id}", response_model=SubmissionView, responses=ERROR_RESPONSES)
async def get_submission(sub_id: RowId, request: Request, auth: AuthDep, db: SessionDep) -> JSONResponse:
    """State (with queue position while queued) and, once graded, the engine's Result as is.

    Only the author and graders/admins can see a submission (others get 404)."""
    view, _ = await run_in_threadpool(_load_visible, request, auth, sub_id, db)
    return JSONResponse(view, headers={"Cache-Control": "no-store"})


@router.post("/submissions/{sub_id}/cancel", response_model=SubmissionView, responses=ERROR_RESPONSES)
async def cancel_submission(sub_id: RowId, request: Request, auth: WriterDep, db: SessionDep) -> JSONResponse:
    """Take back your own submission while it waits (queued or awaiting_gpu): it becomes
    ``cancelled``, final with no verdict. One that is being graded or finished is refused (409)."""
    def run() -> dict[str, Any]:
        row = db.get(Submission, sub_id)
        if row is None or row.user_id != auth.user.id:
            db.commit()
            raise SubmissionError("not_found", status=404)
        if not queue.cancel(db, sub_id, auth.user.id):
            db.rollback()
            raise SubmissionError("not_cancellable", status=409)
        db.commit()
        view, _ = _load_visible(request, auth, sub_id, db)
        return view

    view = await run_in_threadpool(run)
    submissions: SubmissionsRuntime = services(request).get(SubmissionsRuntime)
    submissions.hub.notify(sub_id)  # an open event stream shows it cancelled and ends
    return JSONResponse(view, headers={"Cache-Control": "no-store"})


@router.get("/submissions/{sub_id}/events", response_class=EventStreamResponse, responses=ERROR_RESPONSES)
async def submission_events(sub_id: RowId, request: Request, auth: AuthDep, db: SessionDep) -> StreamingResponse:
    """Server-sent events: ``event: state`` with the submission's JSON at every change
    (queued with position -> compiling -> checking -> timing -> done, or awaiting_gpu). The
    stream ends at done/awaiting_gpu; poll ``GET /api/submissions/{id}`` as a fallback."""
    await run_in_threadpool(_load_visible, request, auth, sub_id, db)  # 404 before streaming
    await run_in_threadpool(db.close)  # a stream may last minutes: hold no connection meanwhile
    factory: sessionmaker[Session] = services(request).session_factory

    def load() -> tuple[dict[str, Any], Submission]:
        with factory() as own:
            return _load_visible(request, auth, sub_id, own)

    async def read() -> events.View | None:
        try:
            view, _ = await run_in_threadpool(load)
        except SubmissionError:
            return None
        view.pop("source", None)  # the stream repeats; the code is in GET already
        return view

    submissions: SubmissionsRuntime = services(request).get(SubmissionsRuntime)
    return StreamingResponse(events.stream(sub_id, submissions.hub, read, request.is_disconnected),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.get("/exercises/{exercise_id}/submissions", response_model=SubmissionList, responses=ERROR_RESPONSES)
async def list_submissions(exercise_id: str, request: Request, auth: AuthDep, db: SessionDep) -> JSONResponse:
    """Your 50 latest submissions for one exercise, newest first (no code, no result: GET one for that)."""
    from sqlalchemy import select

    def load() -> list[dict[str, Any]]:
        rows = db.scalars(select(Submission).where(Submission.user_id == auth.user.id,
                                                   Submission.exercise_id == exercise_id)
                          .order_by(Submission.id.desc()).limit(50)).all()
        trails = reviews_for(db, [r.id for r in rows])
        views = [submission_json(r, lang=api_lang(request), position=queue.position(db, r), include_source=False,
                                 include_result=False, reviews=trails[r.id], gpu_wait=_gpu_wait(request, db, r))
                 for r in rows]
        db.commit()
        return views

    return JSONResponse({"submissions": await run_in_threadpool(load)}, headers={"Cache-Control": "no-store"})
