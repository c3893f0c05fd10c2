"""The procrastinate side of cluster mode: which tasks exist, and how a submission becomes a job.

A submission goes through two queues, both with ``lock = learner:<id>`` (one learner's jobs never
run at once and run in their order) and ``queueing_lock = submission:<id>`` (never two waiting jobs
for one submission; ``Enqueuer`` treats a second defer as done):
- ``compile_submission`` on ``compile`` (CPU slots, app/cluster/compile.py). The web process defers
  it on the SQLAlchemy session's own psycopg connection, before the commit that stores the row: the
  row and its job exist together or not at all, and PostgreSQL's NOTIFY wakes a worker at that
  commit. A compile that fails (or times out) is the final result there; one that compiles defers
- ``grade_submission`` on ``grading`` (one per GPU worker, one job at a time), in the transaction
  that marks the row compiled, with the compile job's priority.
``priority`` is fairness: a learner's first waiting job gets 0, each further one a step lower, so
every learner's first job runs before anyone's second (procrastinate serves the highest priority,
then the oldest); within one learner priorities never rise, so the lock keeps their order.

A job that could not be graded for a reason that is not the learner's (``RetryLater``: this worker
has no usable GPU, our database did not answer) is retried by procrastinate with a growing wait,
never finished with a verdict. ``reconcile`` every 30 s on ``maintenance`` finds rows that say they
wait but have no waiting or running job, and defers one (app/cluster/reconcile.py).

``retry_stalled`` every 5 s on ``maintenance``: jobs of workers whose heartbeat is older than
``worker_stalled_seconds`` (kill -9, host lost) go back to their queue and their rows show
``queued`` again (procrastinate's stalled-job recipe); the job itself ensures it is graded once in
effect (``Dispatcher.run_claimed``).
"""
from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import procrastinate
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app.submissions.dispatcher import DATABASE_ERRORS, Dispatcher, RetryLater
from app.submissions.models import Submission

if TYPE_CHECKING:
    from app.submissions.compiling import CompileStage

log = logging.getLogger(__name__)
_T = TypeVar("_T")  # what the retried job returns

COMPILE_QUEUE = "compile"
GRADING_QUEUE = "grading"
MAINTENANCE_QUEUE = "maintenance"
COMPILE_TASK = "mkc.compile_submission"
GRADE_TASK = "mkc.grade_submission"
RETRY_TASK = "mkc.retry_stalled"
RECONCILE_TASK = "mkc.reconcile"
RECONCILE_EVERY = "* * * * * */30"
RETRY_EVERY = "* * * * * */5"  # cron with a sixth (seconds) column: every 5 s
MAINTENANCE_PRIORITY = 1000  # before any grading job on a worker listening to both queues
# RetryLater: 2 s, then 5, 8, 11 ... (no limit: a job is never dropped because of our side)
RETRY_LATER = procrastinate.RetryStrategy(wait=2, linear_wait=3, retry_exceptions={RetryLater})


class ClusterConfigError(RuntimeError):
    """Cluster mode was asked for on a database that cannot carry it."""


def conninfo(database_url: str) -> str:
    """libpq connection string of a SQLAlchemy PostgreSQL URL (``postgresql+psycopg://…``)."""
    url = make_url(database_url)
    if url.get_backend_name() != "postgresql":
        raise ClusterConfigError(
            f"MKC_QUEUE=procrastinate needs PostgreSQL (MKC_DATABASE_URL=postgresql+psycopg://…), not {url.get_backend_name()}")
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def learner_lock(user_id: int) -> str:
    return f"learner:{user_id}"


def submission_lock(sub_id: int) -> str:
    return f"submission:{sub_id}"


def make_app(database_url: str, **pool_args: Any) -> procrastinate.App:
    """A procrastinate App with our two tasks (a new one per call: tests and benchmarks build many)."""
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo(database_url), **pool_args))

    @app.task(name=GRADE_TASK, queue=GRADING_QUEUE, pass_context=True, retry=RETRY_LATER)
    def grade_submission(context: procrastinate.JobContext, submission_id: int) -> bool:
        # Synchronous: procrastinate runs it in a thread, so the worker's heartbeat keeps beating.
        dispatcher: Dispatcher = context.additional_context["dispatcher"]
        try:
            return retry_on_database_error(dispatcher.run_claimed, int(submission_id))
        except RetryLater as exc:
            if not dispatcher.gpu:  # the GPU is gone: this worker takes no other job
                context.additional_context["gpu_lost"](exc.reason)
            raise

    @app.task(name=COMPILE_TASK, queue=COMPILE_QUEUE, pass_context=True, retry=RETRY_LATER)
    def compile_submission(context: procrastinate.JobContext, submission_id: int) -> str:
        stage: CompileStage = context.additional_context["compile_stage"]
        return retry_on_database_error(stage.run, context.job, int(submission_id))

    @app.periodic(cron=RECONCILE_EVERY, periodic_id="reconcile")
    @app.task(name=RECONCILE_TASK, queue=MAINTENANCE_QUEUE, queueing_lock="reconcile", pass_context=True,
              priority=MAINTENANCE_PRIORITY)
    async def reconcile(context: procrastinate.JobContext, timestamp: int) -> int:
        return len(await asyncio.to_thread(context.additional_context["reconcile"]))

    @app.periodic(cron=RETRY_EVERY, periodic_id="retry_stalled")
    @app.task(name=RETRY_TASK, queue=MAINTENANCE_QUEUE, queueing_lock="retry_stalled", pass_context=True,
              priority=MAINTENANCE_PRIORITY)
    async def retry_stalled(context: procrastinate.JobContext, timestamp: int) -> int:
        extra = context.additional_context
        stalled = list(await context.app.job_manager.get_stalled_jobs(seconds_since_heartbeat=extra["stalled_seconds"]))
        ids = []
        for job in stalled:
            if job.id is None or job.id == context.job.id:
                continue
            try:
                await context.app.job_manager.retry_job(job)
            except procrastinate.exceptions.UniqueViolation:
                # Another job of this submission waits already (its compile finished and deferred the
                # grading job before the database cut this one's bookkeeping): that one runs; this
                # stalled copy is removed, or it would stop every other stalled job from going back.
                await context.app.job_manager.finish_job_by_id_async(job.id, status=procrastinate.jobs.Status.FAILED,
                                                                     delete_job=True)
                log.warning("stalled job %s of %s removed: another job for it waits already", job.id,
                            job.queueing_lock)
            if job.task_name in (GRADE_TASK, COMPILE_TASK):
                ids.append(int(str(job.task_kwargs["submission_id"])))
        if ids:
            log.warning("workers stopped beating: jobs of submissions %s wait again", ids)
            await asyncio.to_thread(extra["requeue"], ids)
        return len(stalled)

    return app


def retry_on_database_error(run: Callable[..., _T], *args: Any) -> _T:
    """A job that met a database error is retried (the database may be restarting), not failed."""
    try:
        return run(*args)
    except DATABASE_ERRORS as exc:
        raise RetryLater(f"database: {str(exc)[:120]}") from exc


def fair_priority(db: Session, user_id: int) -> int:
    """0 for a learner with nothing waiting or running; one lower than their lowest otherwise."""
    lowest = db.execute(text("SELECT MIN(priority) FROM procrastinate_jobs WHERE lock = :lock AND status IN "
                             "('todo', 'doing') AND task_name IN (:compile, :grade)"),
                        {"lock": learner_lock(user_id), "compile": COMPILE_TASK, "grade": GRADE_TASK}).scalar()
    return 0 if lowest is None else int(lowest) - 1


class Enqueuer:
    """Defers a submission's job inside the caller's transaction. The web side calls it with a new
    row (its compile job); the compile stage with ``task=GRADE_TASK`` and the compile job's priority."""

    def __init__(self, database_url: str):
        self.app = make_app(database_url)  # never opened: deferring uses the session's connection

    def __call__(self, db: Session, row: Submission, *, task: str = COMPILE_TASK, priority: int | None = None,
                 schedule_at: dt.datetime | None = None) -> int:
        connection = db.connection().connection.driver_connection  # psycopg, in the session's transaction
        try:
            with db.begin_nested():  # a refused defer rolls back to here, not the caller's transaction
                return self.app.configure_task(
                    task, lock=learner_lock(row.user_id), queueing_lock=submission_lock(row.id),
                    priority=fair_priority(db, row.user_id) if priority is None else priority,
                    schedule_at=schedule_at, connection=connection,
                ).defer(submission_id=row.id)
        except procrastinate.exceptions.AlreadyEnqueued:
            return 0  # a job for this submission waits already: it is the one that will run
