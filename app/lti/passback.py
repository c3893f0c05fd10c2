"""Grade passback (Assignment and Grade Services): each assignment of an LMS-linked class is a line item
in the LMS's gradebook, and a learner's score goes there whenever it changes.

Two steps, each in short transactions, run by a loop in the server (``MKC_LTI_PASSBACK_SECONDS``) or by
``python -m app lti send-scores``:

1. ``scan``: recompute the class gradebook (app/classes/gradebook.py: a pass, a better tier before the
   due time, a grader's override all change it) and bump the ``lti_score`` row of every score that
   differs from the last one recorded. The gradebook is computed from the submissions themselves, so
   a crash between a grading and a scan loses nothing: the next scan finds the change.
2. ``send_due``: the durable queue of the submissions table (app/submissions/queue.py), applied to
   ``lti_score``: claim one row by compare-and-set with a lease, commit, talk to the LMS outside any
   transaction, then record the result only under our own lease. Failures back off and retry forever;
   the row holds only the latest score and its timestamp, so a retry never sends an older score after
   a newer one, and two senders never send one row at once.
"""
from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

import requests
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.service_connector import ServiceConnector
from sqlalchemy import ColumnElement, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.classes import assignments, gradebook, roster
from app.classes.models import Assignment
from app.core.clock import utcnow
from app.core.services import app_services
from app.lessons.exercises import ExerciseInfoCache
from app.lti import courses
from app.lti.models import LtiContext, LtiLineItem, LtiPlatform, LtiScore
from app.lti.tool_config import registration_for
from app.submissions.lanes import new_owner_id
from app.submissions.queue import changed

log = logging.getLogger(__name__)
LEASE = dt.timedelta(seconds=60)
MAX_BACKOFF_S = 3600
SENDS_PER_PASS = 200
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


# ---- 1. finding changed scores -------------------------------------------------------------------

def scan(db: Session, exercises: ExerciseInfoCache) -> int:
    """Records every changed score of every LMS course that has a class and a line items URL; returns
    how many rows changed."""
    changed_rows = 0
    for context in db.scalars(select(LtiContext).where(LtiContext.lineitems_url.is_not(None))).all():
        course_class = roster.find_by_external_id(db, courses.external_id(context.platform_id, context.context_id))
        if course_class is None:
            continue
        views = assignments.for_class(db, course_class.id)
        subjects = {m.user_id: m.subject for m in courses.members(db, context.id) if m.user_id is not None}
        learners = [m for m in roster.roster(db, course_class.id, "learner") if m.user_id in subjects]
        if not views or not learners:
            continue
        tiers = {e: [t.id for t in info.tiers] if (info := exercises.get(e)) else []
                 for a in views for e in a.exercises}
        for row in gradebook.build(db, learners, views, tiers):
            for cell in row.cells:
                changed_rows += _record(db, context.id, cell.assignment_id, row.user_id, subjects[row.user_id],
                                        float(cell.score), float(cell.out_of))
    return changed_rows


def _record(db: Session, context_id: int, assignment_id: int, user_id: int, subject: str, score: float,
            out_of: float) -> int:
    now = utcnow()
    key = (LtiScore.context_id == context_id, LtiScore.assignment_id == assignment_id, LtiScore.user_id == user_id)
    existing = db.scalar(select(LtiScore.id).where(*key))
    if existing is None:
        if score == 0:  # nothing earned yet: the LMS column stays empty rather than filling with zeros
            return 0
        try:
            with db.begin_nested():
                db.add(LtiScore(context_id=context_id, assignment_id=assignment_id, user_id=user_id, subject=subject,
                                score=score, out_of=out_of, version=1, changed_at=now, sent_version=0, attempts=0,
                                last_error="", next_try_at=now))
        except IntegrityError:  # a concurrent scan recorded it first
            return 0
        return 1
    # one atomic statement: two scans at once bump the version once for one change
    return changed(db, update(LtiScore).where(*key, or_(LtiScore.score != score, LtiScore.out_of != out_of))
                   .values(score=score, out_of=out_of, version=LtiScore.version + 1, changed_at=now,
                           next_try_at=now, attempts=0, last_error=""))


# ---- 2. sending --------------------------------------------------------------------------------------

@dataclass
class Claimed:
    id: int
    version: int
    score: float
    out_of: float
    changed_at: dt.datetime
    subject: str
    context_id: int
    assignment_id: int


def _due(now: dt.datetime) -> tuple[ColumnElement[bool], ...]:
    return (LtiScore.version > LtiScore.sent_version, LtiScore.next_try_at <= now,
            or_(LtiScore.lease_owner.is_(None), LtiScore.lease_expires_at < now))


def claim_next(db: Session, owner: str) -> Claimed | None:
    now = utcnow()
    for candidate in db.scalars(select(LtiScore.id).where(*_due(now)).order_by(LtiScore.next_try_at, LtiScore.id)
                                .limit(5)).all():
        if changed(db, update(LtiScore).where(LtiScore.id == candidate, *_due(now))
                   .values(lease_owner=owner, lease_expires_at=now + LEASE)) == 1:
            row = db.scalar(select(LtiScore).where(LtiScore.id == candidate).execution_options(populate_existing=True))
            assert row is not None
            claimed = Claimed(row.id, row.version, row.score, row.out_of, row.changed_at, row.subject,
                              row.context_id, row.assignment_id)
            db.commit()
            return claimed
    db.rollback()
    return None


class SendFailed(Exception):
    """The LMS refused or could not be reached; ``code`` is a short reason shown to the instructor."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _service(db: Session, context: LtiContext) -> AssignmentsGradesService:
    platform = db.get(LtiPlatform, context.platform_id)
    if platform is None or not context.lineitems_url:
        raise SendFailed("no_service")
    scopes = context.ags_scopes.split() or [LINEITEM_SCOPE, SCORE_SCOPE]
    return AssignmentsGradesService(ServiceConnector(registration_for(db, platform)),
                                    {"lineitems": context.lineitems_url, "scope": scopes})  # type: ignore[typeddict-item]


def _line_item_url(db: Session, service: AssignmentsGradesService, context: LtiContext, assignment: Assignment) -> str:
    """The assignment's line item, found by its tag or created (once; its URL is kept)."""
    known = db.scalar(select(LtiLineItem.url).where(LtiLineItem.context_id == context.id,
                                                    LtiLineItem.assignment_id == assignment.id))
    if known:
        return known
    wanted = (LineItem().set_tag(f"assignment:{assignment.id}").set_resource_id(f"assignment:{assignment.id}")
              .set_label(assignment.title).set_score_maximum(1))
    found = service.find_or_create_lineitem(wanted, find_by="tag")
    url = found.get_id()
    if not url:
        raise SendFailed("no_line_item")
    try:
        with db.begin_nested():
            db.add(LtiLineItem(context_id=context.id, assignment_id=assignment.id, url=url[:500], created_at=utcnow()))
    except IntegrityError:  # a concurrent sender stored it first
        pass
    db.commit()
    return url


def _send(db: Session, job: Claimed) -> None:
    context = db.get(LtiContext, job.context_id)
    assignment = db.get(Assignment, job.assignment_id)
    if context is None or assignment is None:
        raise SendFailed("gone")
    service = _service(db, context)
    db.rollback()  # no transaction stays open while the LMS answers
    try:
        url = _line_item_url(db, service, context, assignment)
        line_item = LineItem().set_id(url).set_score_maximum(job.out_of)
        complete = job.score >= job.out_of > 0
        grade = (Grade().set_score_given(job.score).set_score_maximum(job.out_of).set_user_id(job.subject)
                 .set_timestamp(job.changed_at.replace(tzinfo=dt.UTC).isoformat())
                 .set_activity_progress("Completed" if complete else "InProgress")
                 .set_grading_progress("FullyGraded"))
        service.put_grade(grade, line_item)
    except LtiException as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        raise SendFailed(f"http_{status}" if status else "refused") from None
    except (requests.RequestException, ValueError):
        raise SendFailed("unreachable") from None


def _backoff(attempts: int) -> dt.timedelta:
    return dt.timedelta(seconds=min(MAX_BACKOFF_S, 5 * 2 ** min(attempts, 12)))


def send_one(db: Session, owner: str) -> bool:
    """Sends one due score; False when none is due."""
    job = claim_next(db, owner)
    if job is None:
        return False
    mine = (LtiScore.id == job.id, LtiScore.lease_owner == owner)
    try:
        _send(db, job)
    except SendFailed as failure:
        db.rollback()
        row = db.get(LtiScore, job.id)
        attempts = (row.attempts if row else 0) + 1
        db.execute(update(LtiScore).where(*mine).values(
            attempts=attempts, last_error=failure.code[:200], next_try_at=utcnow() + _backoff(attempts),
            lease_owner=None, lease_expires_at=None))
        db.commit()
        log.warning("grade passback: score %s not sent (%s); retrying later", job.id, failure.code)
        return True
    # the version we sent is now the LMS's; a newer one (changed while we sent) stays due
    db.execute(update(LtiScore).where(*mine).values(
        sent_version=job.version, sent_score=job.score, sent_at=utcnow(), attempts=0, last_error="",
        lease_owner=None, lease_expires_at=None))
    db.commit()
    return True


def run_pass(session_factory: sessionmaker[Session], exercises: ExerciseInfoCache, owner: str | None = None) -> int:
    """One scan and the sends it makes due (at most SENDS_PER_PASS); returns how many sends were tried."""
    owner = owner or new_owner_id()
    with session_factory() as db:
        scan(db, exercises)
        db.commit()
        sent = 0
        while sent < SENDS_PER_PASS and send_one(db, owner):
            sent += 1
    return sent


async def run_forever(app: Any) -> None:
    """The server's passback loop: a pass every ``MKC_LTI_PASSBACK_SECONDS``, in a worker thread (the
    LMS calls block). Several server processes may each run one: the leases keep their sends apart."""
    owner = new_owner_id()
    shared = app_services(app)
    while True:
        await asyncio.sleep(shared.settings.lti_passback_seconds)
        try:
            await run_in_threadpool(run_pass, shared.session_factory, shared.get(ExerciseInfoCache), owner)
        except Exception:  # a pass that failed is retried by the next; the rows keep what is due
            log.exception("grade passback pass failed")
