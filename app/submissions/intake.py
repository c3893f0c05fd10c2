"""A POST body becomes a stored submission, or a clear refusal that stores nothing.

Order: size (before reading the whole body) -> JSON shape -> exercise exists -> launch request
is well-formed (its *limits* are the engine's to judge, and the learner gets that verdict as a
graded Result) -> insert the row and check the per-user limits inside the same transaction, so
two simultaneous requests cannot both slip under a limit (the insert takes SQLite's write lock;
on PostgreSQL the user row is locked first).
"""
from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core.clock import utcnow
from app.core.jsonbody import JsonBodyError, loads_strict
from app.submissions import states
from app.submissions.messages import SubmissionError
from app.submissions.models import Submission
from kernels.engine.policy import MAX_SOURCE_BYTES  # the engine's limit, checked here before a job is queued

# JSON escaping can grow text up to 6x (\uXXXX); beyond this no valid request exists.
MAX_BODY_BYTES = 6 * MAX_SOURCE_BYTES + 4096
FIELDS = ("source", "launch")
# Launch codes that mean "not a launch request at all"; the rest are limits the engine grades.
MALFORMED_LAUNCH = {"LAUNCH_NOT_OBJECT", "LAUNCH_UNKNOWN_KEY", "LAUNCH_MISSING_KEY", "LAUNCH_BAD_SHAPE",
                    "LAUNCH_NOT_POSITIVE_INT", "LAUNCH_SMEM_NOT_INT", "LAUNCH_PROFILE_NOT_BOOL"}


@dataclass(frozen=True)
class Limits:
    max_in_flight: int
    per_hour: int
    per_day: int


@dataclass(frozen=True)
class Request_:
    source: str
    launch: Any  # dict or None (= the exercise's launch_defaults)


async def read_body(request: Request) -> bytes:
    """The raw body, refusing oversized ones before they are read into memory."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise SubmissionError("bad_json", status=400) from None
        if size > MAX_BODY_BYTES:
            raise SubmissionError("body_too_large", {"bytes": size, "limit": MAX_BODY_BYTES}, status=413)
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > MAX_BODY_BYTES:
            raise SubmissionError("body_too_large", {"bytes": total, "limit": MAX_BODY_BYTES}, status=413)
        chunks.append(chunk)
    return b"".join(chunks)


def parse_body(raw: bytes, content_type: str) -> Request_:
    if content_type and content_type.split(";")[0].strip().lower() not in ("application/json", ""):
        raise SubmissionError("bad_content_type", status=415)
    try:
        data = loads_strict(raw)  # depth, lone surrogates and UTF-8 refused here, not as a 500 later
    except JsonBodyError:
        raise SubmissionError("bad_json", status=400) from None
    if not isinstance(data, dict):
        raise SubmissionError("bad_json", status=400)
    for key in data:
        if key not in FIELDS:
            raise SubmissionError("unknown_field", {"field": str(key)[:40]}, status=422)
    if "source" not in data:
        raise SubmissionError("source_missing", status=422)
    source = data["source"]
    if not isinstance(source, str):
        raise SubmissionError("source_not_text", status=422)
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        raise SubmissionError("source_too_large", {"bytes": size, "limit": MAX_SOURCE_BYTES}, status=413)
    if not source.strip():
        raise SubmissionError("source_empty", status=422)
    launch = data.get("launch")
    if launch is not None:
        check_launch_shape(launch)
    return Request_(source=source, launch=launch)


def check_launch_shape(launch: Any) -> None:
    from kernels.engine.launch import LaunchRejected, parse_launch

    try:
        parse_launch(launch)
    except LaunchRejected as exc:
        if exc.code in MALFORMED_LAUNCH:
            detail = exc.code + "".join(f" {k}={v}" for k, v in exc.params.items() if k != "allowed")
            raise SubmissionError("bad_launch", {"detail": detail, "code": exc.code, **exc.params}, status=422) from None


def exercise_exists(exercise_id: str) -> bool:
    from kernels.engine import UnknownExercise, load_exercise

    try:
        load_exercise(exercise_id)
    except UnknownExercise:
        return False
    except Exception:  # a broken spec: let the engine report it as a graded UNAVAILABLE
        return True
    return True


def store(db: Session, user: User, exercise_id: str, req: Request_, limits: Limits,
          enqueue: Callable[[Session, Submission], Any] | None = None) -> Submission:
    """Insert the row, then enforce the limits counting it; refuse (roll back) when over.
    ``enqueue`` (cluster mode) defers the row's grading job in the same transaction."""
    if db.get_bind().dialect.name == "postgresql":
        db.execute(select(User.id).where(User.id == user.id).with_for_update())
    now = utcnow()
    row = Submission(user_id=user.id, exercise_id=exercise_id, source=req.source,
                     launch=json.dumps(req.launch), source_bytes=len(req.source.encode("utf-8", "surrogatepass")),
                     state=states.QUEUED, created_at=now, updated_at=now, attempts=0, recorded=False)
    db.add(row)
    db.flush()
    try:
        check_limits(db, user.id, now, limits)
    except SubmissionError:
        db.rollback()
        raise
    if enqueue is not None:
        enqueue(db, row)
    db.commit()
    return row


def check_limits(db: Session, user_id: int, now: dt.datetime, limits: Limits) -> None:
    mine = select(func.count()).select_from(Submission).where(Submission.user_id == user_id)
    in_flight = db.scalar(mine.where(Submission.state.in_(states.IN_FLIGHT))) or 0
    if in_flight > limits.max_in_flight:
        raise SubmissionError("too_many_in_flight", {"limit": limits.max_in_flight}, status=429, headers={"Retry-After": "5"})
    for code, window, limit in (("hourly_limit", dt.timedelta(hours=1), limits.per_hour),
                                ("daily_limit", dt.timedelta(days=1), limits.per_day)):
        since = now - window
        count = db.scalar(mine.where(Submission.created_at > since)) or 0
        if count > limit:
            # the window frees a slot when the oldest submission in it ages out
            oldest = db.scalar(select(Submission.created_at).where(Submission.user_id == user_id,
                                                                   Submission.created_at > since)
                               .order_by(Submission.created_at).limit(1))
            wait = max(1, int(((oldest or now) + window - now).total_seconds()) + 1)
            raise SubmissionError(code, {"limit": limit, "minutes": -(-wait // 60)}, status=429, headers={"Retry-After": str(wait)})
