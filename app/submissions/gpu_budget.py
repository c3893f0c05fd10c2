"""One learner's GPU time per hour (``gpu_budget_seconds``): what a job used, whether a learner may
start another, and when their next job can run.

Why in the database: every dispatcher (one per GPU, in any number of processes) and every cluster
worker must agree, so the budget is one more condition of the claim's compare-and-set UPDATE
(``queue.claim_next``, ``queue.claim``): a job whose learner used the budget in the last hour is not
claimable, checked in the same statement that takes it, on SQLite and PostgreSQL alike. The others'
jobs are claimed as usual: the learner over budget waits, nobody else does.

What counts: a finished job's checking and timing (the Result's ``phases``), i.e. the time it held
the GPU, compile excluded. A job's own GPU time is known only once it ran, so a learner can pass the
budget by at most the one job in hand (bounded by the engine's per-job budget): their jobs run one
at a time (the in-flight limit on one box, the learner lock in cluster mode).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import ColumnElement, func, select, true
from sqlalchemy.orm import Session, aliased

from app.submissions import states
from app.submissions.models import Submission

if TYPE_CHECKING:
    from kernels.engine.result import Result

WINDOW = dt.timedelta(hours=1)
GPU_PHASES = ("checking", "timing")  # the engine's phases that hold the GPU


@dataclass(frozen=True)
class GpuWait:
    """A learner over their GPU budget: used seconds in the window, the budget, and when their
    next job can run (UTC, naive like every stored time)."""

    used_seconds: float
    budget_seconds: float
    until: dt.datetime


def gpu_ms_of(result: Result) -> int:
    """Milliseconds the job held the GPU (its checking and timing phases)."""
    return int(round(sum(p.ms for p in result.phases if p.name in GPU_PHASES)))


def within_budget(now: dt.datetime, budget_seconds: float) -> ColumnElement[bool]:
    """SQL: the row's learner used less than the budget in the hour before ``now`` (always true
    when the budget is 0: off). Correlated on ``submission.user_id``, for a claim's WHERE."""
    if budget_seconds <= 0:
        return true()
    past = aliased(Submission)
    used = (select(func.coalesce(func.sum(past.gpu_ms), 0))
            .where(past.user_id == Submission.user_id, past.finished_at > now - WINDOW)
            .correlate(Submission).scalar_subquery())
    return used < int(budget_seconds * 1000)


def gpu_wait(db: Session, user_id: int, budget_seconds: float, now: dt.datetime) -> GpuWait | None:
    """None while the learner is within the budget; else when their next job can run: when enough
    of their last hour's GPU time has left the window."""
    if budget_seconds <= 0:
        return None
    rows = [(finished, int(ms)) for finished, ms in db.execute(
        select(Submission.finished_at, Submission.gpu_ms)
        .where(Submission.user_id == user_id, Submission.finished_at > now - WINDOW, Submission.gpu_ms > 0)
        .order_by(Submission.finished_at)).all() if finished is not None and ms is not None]
    budget_ms = int(budget_seconds * 1000)
    used = total = sum(ms for _, ms in rows)
    if total < budget_ms:
        return None
    until = now
    for finished, ms in rows:
        used -= ms
        if used < budget_ms:
            until = finished + WINDOW
            break
    return GpuWait(used_seconds=total / 1000.0, budget_seconds=budget_seconds, until=until)


def waiting_row(db: Session, row: Submission, budget_seconds: float, now: dt.datetime) -> GpuWait | None:
    """The wait of a queued row whose learner is over the budget (None for any other row)."""
    if row.state != states.QUEUED:
        return None
    return gpu_wait(db, row.user_id, budget_seconds, now)
