"""The compile stage in cluster mode: procrastinate's ``compile`` queue is the transport of the
pipeline's compile stage (app/submissions/compiling.py, the same code the one-box pipeline runs).

- Per learner: one compile at a time (the procrastinate lock ``learner:<id>``); the compile budget
  and the cool-down of compile bombs are the stage's own (app/submissions/compiling.py).
- A held-back row's job is deferred to the time it may go on (``schedule_at``); a compiled row's
  ``grade_submission`` job is deferred in the transaction that marks it compiled, with the compile
  job's priority (fairness carries over from one stage to the next).
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from app.submissions.compiling import COOLDOWN_RETRY_SECONDS, CompilerPool, CompileStage

__all__ = ["COOLDOWN_RETRY_SECONDS", "CompilerPool", "CompileStage", "Procrastinate", "cluster_compile_stage"]


class Procrastinate:
    """The pipeline's transport in cluster mode (app/submissions/compiling.py ``Transport``)."""

    def __init__(self, enqueuer: Any) -> None:
        self.enqueuer = enqueuer

    def hold(self, db: Any, row: Any, until: dt.datetime, job: Any) -> None:
        self.enqueuer(db, row, priority=job.priority, schedule_at=until.replace(tzinfo=dt.UTC))

    def compiled(self, db: Any, row: Any, job: Any) -> None:
        from app.cluster.jobs import GRADE_TASK

        self.enqueuer(db, row, task=GRADE_TASK, priority=job.priority)


def cluster_compile_stage(session_factory: Any, dispatchers: list[Any], compile_first: Any, enqueuer: Any,
                          budget_seconds: float, slice_seconds: float = 0.0) -> CompileStage:
    """The compile stage with procrastinate as its transport; ``run(job, submission_id)``."""
    return CompileStage(session_factory, dispatchers, compile_first, budget_seconds, Procrastinate(enqueuer),
                        slice_seconds)
