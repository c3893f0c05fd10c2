"""The submissions table as a queue: fair claims, leases, phase updates, finishing.

Every function here is one short transaction; nothing holds a transaction while a job runs.
A claim is a compare-and-set: pick the next candidate, then
``UPDATE submission SET lease_owner=me ... WHERE id=:id AND <still claimable>`` — when two
dispatchers race for one row, the database lets exactly one UPDATE match.

Fairness: the next job belongs to the user served least recently (never-served users first),
and is that user's oldest waiting job. With several users waiting this is a round-robin; within
one user it is first-in, first-out.
"""
from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import ColumnElement, and_, func, or_, select, update
from sqlalchemy.orm import InstrumentedAttribute, Session, aliased

if TYPE_CHECKING:
    from sqlalchemy import CursorResult

from app.core.clock import utcnow
from app.submissions import states
from app.submissions.gpu_budget import within_budget
from app.submissions.models import Submission

log = logging.getLogger(__name__)
NEVER = dt.datetime(1970, 1, 1)


def changed(db: Session, statement: Any) -> int:
    """How many rows an UPDATE matched: the answer of a compare-and-set."""
    return cast("CursorResult[Any]", db.execute(statement)).rowcount


def claimable(now: dt.datetime, gpu: bool) -> ColumnElement[bool]:
    """Rows a dispatcher may take: waiting ones, and running ones whose lease ran out."""
    waiting = [states.QUEUED, states.AWAITING_GPU] if gpu else [states.QUEUED]
    return or_(Submission.state.in_(waiting),
               and_(Submission.state.in_(states.RUNNING), Submission.lease_expires_at < now))


def fair_order() -> tuple[ColumnElement[dt.datetime], InstrumentedAttribute[dt.datetime], InstrumentedAttribute[int]]:
    served = aliased(Submission)
    last_served = (select(func.max(served.claimed_at)).where(served.user_id == Submission.user_id)
                   .correlate(Submission).scalar_subquery())
    return (func.coalesce(last_served, NEVER), Submission.created_at, Submission.id)


def compiled_rows() -> ColumnElement[bool]:
    """Rows the compile stage is done with: the GPU stage's (an awaiting_gpu row compiled before)."""
    return or_(Submission.compile_ms.is_not(None), Submission.state == states.AWAITING_GPU)


def to_compile(now: dt.datetime) -> ColumnElement[bool]:
    """Rows for the compile stage: waiting and not compiled yet (none held back past now), and compile
    leases that ran out (a slot's process died mid-compile). Only a learner's oldest unfinished row:
    one compile at a time per learner, and their jobs reach the GPU stage in the order they came."""
    older = aliased(Submission)
    older_unfinished = (select(older.id).where(older.user_id == Submission.user_id, older.id < Submission.id,
                                               older.state.in_(states.IN_FLIGHT))
                        .correlate(Submission).exists())
    waiting = and_(Submission.state == states.QUEUED,
                   or_(Submission.waiting_until.is_(None), Submission.waiting_until <= now))
    stalled = and_(Submission.state.in_(states.RUNNING), Submission.lease_expires_at < now)
    return and_(Submission.compile_ms.is_(None), or_(waiting, stalled), ~older_unfinished)


def next_to_compile(db: Session) -> int | None:
    """The fairest row for a compile slot (not claimed: ``claim(..., take_over_live=False)`` does that)."""
    found = db.scalar(select(Submission.id).where(to_compile(utcnow())).order_by(*fair_order()).limit(1))
    db.rollback()
    return found


def claim_next(db: Session, *, lane: str, owner: str, gpu: bool, lease_seconds: float,
               gpu_budget_seconds: float = 0.0, compiled_only: bool = False,
               state: str = states.COMPILING) -> Submission | None:
    """Claim the fairest claimable job for this lane, or None when there is none. On a GPU lane a
    job whose learner used ``gpu_budget_seconds`` of GPU in the last hour is not claimable (0: off).
    ``compiled_only``: the GPU stage of the pipeline, behind a compile stage, takes only compiled rows.
    ``state``: what the learner sees once it is claimed (the GPU stage of a compiled row: checking)."""
    for _ in range(8):  # lost races: another dispatcher took our candidate; pick again
        now = utcnow()
        budget = within_budget(now, gpu_budget_seconds if gpu else 0.0)
        if compiled_only:
            budget = and_(budget, compiled_rows())
        candidate = db.scalar(select(Submission.id).where(claimable(now, gpu), budget)
                              .order_by(*fair_order()).limit(1))
        if candidate is None:
            db.rollback()
            return None
        won = changed(db, update(Submission).where(Submission.id == candidate, claimable(now, gpu), budget).values(
            state=state, lane=lane, lease_owner=owner,
            lease_expires_at=now + dt.timedelta(seconds=lease_seconds), claimed_at=now, started_at=None,
            attempts=Submission.attempts + 1, updated_at=now)) == 1
        db.commit()
        if won:
            return db.get(Submission, candidate, populate_existing=True)
    return None


def claim(db: Session, sub_id: int, *, lane: str, owner: str, gpu: bool, lease_seconds: float,
          count_attempt: bool = True, gpu_budget_seconds: float = 0.0, take_over_live: bool = True,
          only: ColumnElement[bool] | None = None, state: str = states.COMPILING) -> Submission | None:
    """Claim one given job (cluster mode: the job-queue engine handed it to this worker), or None when
    it is final already (done; awaiting_gpu on a worker without a GPU) or gone.

    A row still in a running state is taken over: the engine gives a job to one worker at a time and
    hands it out again only after the previous worker's heartbeat stopped, so its holder is dead. Were
    it alive after all, its ``finish`` no longer matches the lease owner and its result is dropped.
    ``count_attempt=False`` for the compile stage: ``attempts`` counts GPU runs (max_attempts).
    ``gpu_budget_seconds`` (the GPU stage): None also while its learner is over their GPU budget.
    ``take_over_live=False`` (the one-box pipeline, where nothing but the lease says its holder is
    gone): a running row only once its lease ran out. ``only``: a further condition, checked in the
    same compare-and-set (the compile stage: the row still needs its compile)."""
    now = utcnow()
    takeable = [states.QUEUED, *states.RUNNING] + ([states.AWAITING_GPU] if gpu else [])
    free = Submission.state.in_(takeable) if take_over_live else claimable(now, gpu)
    if only is not None:
        free = and_(free, only)
    won = changed(db, update(Submission).where(Submission.id == sub_id, free,
                                               within_budget(now, gpu_budget_seconds)).values(
        state=state, lane=lane, lease_owner=owner,
        lease_expires_at=now + dt.timedelta(seconds=lease_seconds), claimed_at=now, started_at=None,
        attempts=Submission.attempts + (1 if count_attempt else 0), waiting_reason=None, waiting_until=None,
        updated_at=now)) == 1
    db.commit()
    return db.get(Submission, sub_id, populate_existing=True) if won else None


def requeue(db: Session, sub_ids: list[int]) -> list[int]:
    """Running jobs whose worker died wait again (the learner's page shows them queued)."""
    if not sub_ids:
        return []
    ids = list(db.scalars(select(Submission.id).where(Submission.id.in_(sub_ids), Submission.state.in_(states.RUNNING))))
    if ids:
        db.execute(update(Submission).where(Submission.id.in_(ids), Submission.state.in_(states.RUNNING))
                   .values(state=states.QUEUED, lease_owner=None, lease_expires_at=None, updated_at=utcnow()))
    db.commit()
    return ids


def release(db: Session, sub_id: int, owner: str) -> bool:
    """Cluster mode: this worker could not grade the job (no GPU); the row waits again as queued,
    for the job engine to hand its job to another worker. False when the lease was lost."""
    ok = changed(db, update(Submission).where(
        Submission.id == sub_id, Submission.lease_owner == owner, Submission.state.in_(states.RUNNING),
    ).values(state=states.QUEUED, lease_owner=None, lease_expires_at=None, started_at=None,
             attempts=Submission.attempts - 1, updated_at=utcnow())) == 1
    db.commit()
    return ok


def compiled(db: Session, sub_id: int, owner: str, compile_ms: int) -> Submission | None:
    """Cluster compile stage: the kernel compiled; the row waits for a GPU (``queued``) and leaves the
    compile worker's lease. The caller commits (its grading job is deferred in this transaction)."""
    now = utcnow()
    ok = changed(db, update(Submission).where(
        Submission.id == sub_id, Submission.lease_owner == owner, Submission.state.in_(states.RUNNING),
    ).values(state=states.QUEUED, compile_ms=compile_ms, lease_owner=None, lease_expires_at=None,
             updated_at=now)) == 1
    return db.get(Submission, sub_id, populate_existing=True) if ok else None


def set_compile_ms(db: Session, sub_id: int, compile_ms: int) -> None:
    db.execute(update(Submission).where(Submission.id == sub_id).values(compile_ms=compile_ms))
    db.commit()


def long_compile(db: Session, sub_id: int, owner: str, slice_ms: int) -> Submission | None:
    """Compile stage: the row's first compile ran past its CPU slice. It is not final: it waits as queued
    again, marked a long compile (``long_compile_ms``: what the slice spent) for one compile with the full
    limit. None when the lease was lost. The caller holds it back and commits."""
    ok = changed(db, update(Submission).where(
        Submission.id == sub_id, Submission.lease_owner == owner, Submission.state.in_(states.RUNNING),
    ).values(state=states.QUEUED, long_compile_ms=func.coalesce(Submission.long_compile_ms, 0) + slice_ms,
             lease_owner=None, lease_expires_at=None,
             updated_at=utcnow())) == 1
    return db.get(Submission, sub_id, populate_existing=True) if ok else None


def compile_seconds_used(db: Session, user_id: int, since: dt.datetime) -> tuple[float, dt.datetime | None]:
    """(compile seconds this learner used since ``since``, when the oldest of them was claimed). A long
    compile counts both of its compiles: the first slice and the compile with the full limit."""
    spent = func.coalesce(Submission.compile_ms, 0) + func.coalesce(Submission.long_compile_ms, 0)
    total, oldest = db.execute(select(func.coalesce(func.sum(spent), 0), func.min(Submission.claimed_at))
                               .where(Submission.user_id == user_id,
                                      or_(Submission.compile_ms.is_not(None), Submission.long_compile_ms.is_not(None)),
                                      Submission.claimed_at > since)).one()
    db.rollback()
    return float(total or 0) / 1000.0, oldest


def hold_back(db: Session, sub_id: int, reason: str, until: dt.datetime) -> None:
    """A queued row waits past its turn (compile budget, cool-down): the learner's page says why and until
    when. The caller commits, with the job it defers for ``until``."""
    now = utcnow()
    # A row whose holder died mid-compile (its lease ran out) waits as queued again, held back too;
    # left running, it would be picked again at once and held back again, forever.
    db.execute(update(Submission).where(Submission.id == sub_id, claimable(now, gpu=False))
               .values(state=states.QUEUED, lease_owner=None, lease_expires_at=None,
                       waiting_reason=reason, waiting_until=until, updated_at=now))


def compile_timed_out(db: Session, user_id: int, since: dt.datetime, excluding: int | None = None) -> bool:
    """Did one of this learner's compiles since ``since`` end as a compile timeout (a likely bomb), or run
    past its first slice without its full compile ever finishing (a long compile cancelled while it waited:
    otherwise cancelling and submitting again would give every bomb a fresh first slice outside the slots
    cooling learners share)? ``excluding``: the row being decided on."""
    timed_out = and_(Submission.finished_at > since, Submission.verdict == "COMPILE_ERROR",
                     Submission.result.like('%"COMPILE_TIMEOUT"%'))
    left_long = and_(Submission.updated_at > since, Submission.long_compile_ms.is_not(None),
                     Submission.compile_ms.is_(None), Submission.id != (excluding or 0))
    found = db.scalar(select(Submission.id).where(Submission.user_id == user_id, or_(timed_out, left_long)).limit(1))
    db.rollback()
    return found is not None


def mark_started(db: Session, sub_id: int, owner: str) -> None:
    now = utcnow()
    db.execute(update(Submission).where(Submission.id == sub_id, Submission.lease_owner == owner)
               .values(started_at=now, updated_at=now))
    db.commit()


def set_state(db: Session, sub_id: int, owner: str, state: str, lease_seconds: float) -> bool:
    """A phase change while running; also renews the lease. False when the lease was lost."""
    now = utcnow()
    ok = changed(db, update(Submission).where(
        Submission.id == sub_id, Submission.lease_owner == owner, Submission.state.in_(states.RUNNING),
    ).values(state=state, updated_at=now, lease_expires_at=now + dt.timedelta(seconds=lease_seconds))) == 1
    db.commit()
    return ok


def renew(db: Session, sub_id: int, owner: str, lease_seconds: float) -> bool:
    now = utcnow()
    ok = changed(db, update(Submission).where(
        Submission.id == sub_id, Submission.lease_owner == owner, Submission.state.in_(states.RUNNING),
    ).values(lease_expires_at=now + dt.timedelta(seconds=lease_seconds))) == 1
    db.commit()
    return ok


def finish(db: Session, sub_id: int, owner: str, state: str, result_json: str, verdict: str,
           gpu_ms: int | None = None) -> bool:
    """Store the Result (and the GPU time it took, for the learner's GPU budget) and leave the
    lease. False (nothing written) when the lease was lost: another dispatcher has the job now and
    its result will be the one kept."""
    now = utcnow()
    ok = changed(db, update(Submission).where(
        Submission.id == sub_id, Submission.lease_owner == owner, Submission.state.in_(states.RUNNING),
    ).values(state=state, result=result_json, verdict=verdict, finished_at=now, updated_at=now,
             lease_owner=None, lease_expires_at=None, gpu_ms=gpu_ms)) == 1
    db.commit()
    return ok


def requeue_lane(db: Session, lane: str, owner: str) -> list[int]:
    """On taking over a lane: its previous holder is gone, so its running jobs wait again."""
    ids = list(db.scalars(select(Submission.id).where(
        Submission.lane == lane, Submission.state.in_(states.RUNNING),
        or_(Submission.lease_owner.is_(None), Submission.lease_owner != owner))))
    if ids:
        db.execute(update(Submission).where(Submission.id.in_(ids), Submission.state.in_(states.RUNNING),
                                            Submission.lane == lane)
                   .values(state=states.QUEUED, lease_owner=None, lease_expires_at=None, updated_at=utcnow()))
    db.commit()
    return ids


def record_pending(db: Session, record: Callable[[Session, Submission], None], limit: int = 20) -> int:
    """Pay XP for finished rows whose recording did not happen (crash between the two commits)."""
    rows = list(db.scalars(select(Submission).where(Submission.state == states.DONE,
                                                    Submission.recorded.is_(False)).limit(limit)))
    done = 0
    for row in rows:
        try:
            record(db, row)
            db.execute(update(Submission).where(Submission.id == row.id).values(recorded=True))
            db.commit()
            done += 1
        except Exception:
            db.rollback()
            log.exception("could not record the result of submission %s", row.id)
    return done


def position(db: Session, row: Submission) -> int | None:
    """1 for the next job of its stage. A queued row waits for a compile slot, or, once compiled, for
    the GPU stage: only rows of the same stage stored earlier are ahead of it. A row waiting for a GPU
    (awaiting_gpu) counts the compiled queued ones and the others awaiting a GPU. Exact when each user
    has one job in flight, the default; with more, the round-robin may let a later job of another
    user pass."""
    if row.state not in states.WAITING:
        return None
    if row.state == states.QUEUED:
        compiled = Submission.compile_ms.is_not(None) if row.compile_ms is not None else Submission.compile_ms.is_(None)
        stage = and_(Submission.state == states.QUEUED, compiled)
    else:
        stage = or_(Submission.state == states.AWAITING_GPU,
                    and_(Submission.state == states.QUEUED, Submission.compile_ms.is_not(None)))
    ahead = db.scalar(select(func.count()).select_from(Submission).where(
        stage,
        or_(Submission.created_at < row.created_at, and_(Submission.created_at == row.created_at,
                                                         Submission.id < row.id)))) or 0
    return ahead + 1


ESTIMATE_SAMPLE = 20  # recent gradings whose median time makes the estimate


def seconds_per_job(db: Session) -> float | None:
    """The median time a job took from claim to result, over the latest gradings; None before any."""
    rows = db.execute(select(Submission.claimed_at, Submission.finished_at)
                      .where(Submission.state == states.DONE, Submission.claimed_at.is_not(None),
                             Submission.finished_at.is_not(None))
                      .order_by(Submission.finished_at.desc()).limit(ESTIMATE_SAMPLE)).all()
    spans = sorted((done - claimed).total_seconds() for claimed, done in rows
                   if claimed is not None and done is not None and done >= claimed)
    return spans[len(spans) // 2] if spans else None


def cancel(db: Session, sub_id: int, user_id: int) -> bool:
    """Take back one's own job while it waits: one conditional UPDATE, so a dispatcher that claims it
    at the same moment either got it first (the cancel changes nothing) or never sees it."""
    now = utcnow()
    return changed(db, update(Submission).where(Submission.id == sub_id, Submission.user_id == user_id,
                                                Submission.state.in_(states.WAITING))
                   .values(state=states.CANCELLED, finished_at=now, updated_at=now, lease_owner=None,
                           lease_expires_at=None)) == 1


def result_of(row: Submission) -> dict[str, Any] | None:  # the engine's Result JSON, as is
    return json.loads(row.result) if row.result else None
