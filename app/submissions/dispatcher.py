"""The dispatcher: holds a lane (one GPU, or this machine's CPU when it has none), claims jobs
fairly and runs the engine's ``grade()`` in its own thread, so the web server's event loop never
waits on a compile or a GPU run, and no database transaction stays open while a job runs. It is
the GPU stage of the grading pipeline in both deployments (``compiled_only`` on one box,
app/submissions/pipeline.py; ``run_claimed`` in cluster mode), and each compile slot's claim and
store (``compile_claimed``).

Outcomes:
- ``UNAVAILABLE_NO_GPU`` (compiled fine, nothing to run it on) -> ``awaiting_gpu``: the row keeps
  that compile-only Result (log, resources) and any GPU lane claims it later like a queued job.
- anything else -> ``done``, then ``record_grading_result`` (XP, tiers, achievements) once.

A job whose dispatcher dies stays leased until the lease runs out (or until a new holder of its
lane takes over), then it is claimed again; after ``max_attempts`` claims it is finished as
UNAVAILABLE instead of crashing dispatchers forever.
"""
from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.core.clock import utcnow
from app.submissions import lanes, queue, states
from app.submissions.models import Submission
from kernels.engine.result import Result, Verdict

log = logging.getLogger(__name__)
Notify = Callable[[int], None]
PhaseHook = Callable[[str], None]  # told each engine phase ("compiling", ...) as it starts
# grade(exercise_id, source, launch, on_phase) -> Result: the engine's, or a stand-in (tests, benches).
# ``launch`` is the launch request as the learner sent it, parsed JSON: Any, the engine checks its shape.
Grade = Callable[[str, str, Any, PhaseHook], Result]
# compile_first(exercise_id, source, launch, on_phase) -> a final Result, or None when it compiled.
CompileFirst = Callable[[str, str, Any, PhaseHook | None], Result | None]
# over_budget(db, row, until): cluster mode hands a job back to its queue until the learner's GPU
# budget frees (the caller commits).
OverBudget = Callable[[Session, Submission, dt.datetime], None]


class LongCompile(Exception):
    """Raised by a compile stage's ``compile_first`` when a compile ran past its first CPU slice: not a
    verdict. ``compile_claimed`` marks the row a long compile and hands it back (``on_long``)."""


@dataclass
class DispatcherConfig:
    lane: str = ""  # empty: "<host>:gpu<index>" with a GPU, "<host>:cpu" without
    gpu_index: int = 0
    lease_seconds: float = 60.0
    poll_seconds: float = 0.5
    max_attempts: int = 3
    gpu: bool | None = None  # None: ask the engine (kernels.engine.gpu.gpu_available)
    # GPU seconds one learner may use per hour (app/submissions/gpu_budget.py); 0: no limit
    gpu_budget_seconds: float = 0.0
    store_patience_seconds: float = 120.0  # cluster mode: how long a result waits for the database
    # The GPU stage of the one-box pipeline (app/submissions/pipeline.py): compile slots compile every
    # job first, so this dispatcher claims only compiled rows and its grade() finds the cubin cached.
    compiled_only: bool = False


@dataclass
class DispatcherStats:
    jobs: int = 0
    dequeue_to_engine_ms: list[float] = field(default_factory=list)  # claim committed -> grade() called


def _engine_grade(exercise_id: str, source: str, launch: Any, on_phase: PhaseHook) -> Result:
    from kernels.engine import grade

    return grade(exercise_id, source, launch, on_phase=on_phase)


def _engine_has_gpu() -> bool:
    try:
        from kernels.engine.gpu import gpu_available
    except Exception:
        return False
    return bool(gpu_available())


class RetryLater(Exception):
    """Cluster mode: the job was not graded for a reason that is not the learner's (this worker has no
    usable GPU, our database did not answer). Its row waits as ``queued`` again when the database
    allows it, and the job engine runs the job again later (app/cluster/jobs.py); it is never
    finished with a verdict that blames the learner's kernel."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


DATABASE_ERRORS = (OperationalError, InterfaceError)  # connection lost, server restarting or down
# Cluster mode, draining (SIGTERM) while the database does not answer: how much longer a finished result
# waits to be stored. Then its job is left to the queue (another worker grades it again) and the worker
# exits: a stop must end in bounded time (a supervisor's stop timeout), not after the full patience.
DRAIN_STORE_SECONDS = 10.0


def abandoned_result(exercise_id: str) -> Result:
    from kernels.engine.result import Message

    return Result(verdict=Verdict.UNAVAILABLE, exercise=exercise_id,
                  message=Message("UNAVAILABLE_INTERNAL", {"stage": "dispatcher"}))


class Dispatcher:
    def __init__(self, session_factory: sessionmaker[Session], config: DispatcherConfig | None = None, *,
                 lesson_slugs: Callable[[], frozenset[str]] = frozenset, notify: Notify | None = None,
                 grade: Grade | None = None) -> None:
        self.session_factory = session_factory
        self.config = config or DispatcherConfig()
        self.lesson_slugs = lesson_slugs
        self.notify = notify or (lambda _id: None)
        self.grade: Grade = grade or _engine_grade
        self.owner = lanes.new_owner_id()
        self.gpu: bool | None = self.config.gpu
        self.lane = self.config.lane
        self.holds_lane = False
        self.stats = DispatcherStats()
        self.current: int | None = None  # id of the job being graded
        self._drain_started: float | None = None  # cluster mode: when drain() was called (time.monotonic)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._keeper: threading.Thread | None = None
        self._lane_checked_at = float("-inf")
        # Cluster workers (app/cluster) get their jobs from the job-queue engine, not from a lane.
        self.uses_lanes = True
        self.over_budget: OverBudget | None = None
        # A compile slot of the one-box pipeline: leases on its rows, but no GPU lane to hold.
        self.compile_slot = False

    # ---- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run_forever, name="submissions-dispatcher", daemon=True)
        self._thread.start()

    def drain(self) -> None:
        """Cluster mode, on SIGTERM (the job engine stops handing out jobs): a result that waits for an
        unreachable database waits at most ``DRAIN_STORE_SECONDS`` more. Safe from any thread."""
        if self._drain_started is None:
            self._drain_started = time.monotonic()

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop claiming; wait for a running job up to ``timeout``. The lane is released only
        when the thread has really ended (otherwise another dispatcher could start a second job
        on this GPU while ours still runs); an abandoned job is reclaimed after its lease."""
        self._stop.set()
        self._wake.set()
        finished = True
        for thread in (self._thread, self._keeper):  # the keeper ends after the job it guards
            if thread is not None and finished:
                thread.join(timeout)
                finished = not thread.is_alive()
        if finished and self.holds_lane:
            try:
                with self.session_factory() as db:
                    lanes.release(db, self.lane, self.owner)
                self.holds_lane = False
            except Exception:
                log.exception("could not release lane %s", self.lane)
        return finished

    def wake(self) -> None:
        """A job was stored in this process: look now instead of at the next poll."""
        self._wake.set()

    def _setup(self) -> None:
        if self.gpu is None:
            self.gpu = _engine_has_gpu()
        if not self.lane:
            self.lane = lanes.default_lane(self.gpu, self.config.gpu_index)
        log.info("dispatcher %s for lane %s (gpu=%s)", self.owner, self.lane, self.gpu)

    def run_forever(self) -> None:
        self._setup()
        self._keeper = threading.Thread(target=self._keep_leases, name="submissions-lease-keeper", daemon=True)
        self._keeper.start()
        while not self._stop.is_set():
            try:
                ran = self.step()
            except OperationalError as exc:  # e.g. SQLite busy past its timeout under heavy load
                log.warning("dispatcher step: database busy (%s); retrying", str(exc.orig)[:80])
                ran = False
            except Exception:
                log.exception("dispatcher step failed")
                ran = False
            if not ran:
                self._wake.wait(self.config.poll_seconds)
                self._wake.clear()

    # ---- one step -------------------------------------------------------------------------

    def hold_lane(self, *, force: bool = False) -> bool:
        now = time.monotonic()
        # Renewing costs a write: the holder renews a third of a lease in; standbys ask as often.
        if not force and now - self._lane_checked_at < self.config.lease_seconds / (3 if self.holds_lane else 6):
            return self.holds_lane
        self._lane_checked_at = now
        with self.session_factory() as db:
            try:
                held, previous = lanes.acquire(db, self.lane, self.owner, self.config.lease_seconds)
            except OperationalError:
                self.holds_lane = False  # unsure whether the lease was renewed: claim nothing new
                self._lane_checked_at = float("-inf")  # and ask again at the next poll
                raise
            if held and not self.holds_lane:
                requeued = queue.requeue_lane(db, self.lane, self.owner)
                if requeued:
                    log.warning("lane %s taken over from %s: jobs %s wait again", self.lane, previous, requeued)
                    for sub_id in requeued:
                        self.notify(sub_id)
        self.holds_lane = held
        return held

    def step(self) -> bool:
        """Hold the lane, record any unrecorded results, claim and run one job. True if one ran."""
        if self.gpu is None or not self.lane:
            self._setup()
        if not self.hold_lane():
            return False
        with self.session_factory() as db:
            queue.record_pending(db, self._record)
            job = queue.claim_next(db, lane=self.lane, owner=self.owner, gpu=bool(self.gpu),
                                   lease_seconds=self.config.lease_seconds,
                                   gpu_budget_seconds=self.config.gpu_budget_seconds,
                                   compiled_only=self.config.compiled_only,
                                   state=self._gpu_stage_state(self.config.compiled_only))
        if job is None:
            return False
        self._grade_claimed(job)
        return True

    def run_claimed(self, sub_id: int) -> bool:
        """Cluster mode: grade the one job the queue engine handed us, through the same steps as
        ``step`` (claim, grade, finish, record). False when it was final already: a retried job
        whose previous worker died after storing the result is not graded again; only its XP is
        recorded if that was what the crash interrupted. Also False when its learner is over their GPU
        budget: ``over_budget`` hands it back to the queue until the budget frees."""
        if self.gpu is None or not self.lane:
            self._setup()
        if self._keeper is None:
            self._keeper = threading.Thread(target=self._keep_leases, name="submissions-lease-keeper", daemon=True)
            self._keeper.start()
        with self.session_factory() as db:
            job = queue.claim(db, sub_id, lane=self.lane, owner=self.owner, gpu=bool(self.gpu),
                              lease_seconds=self.config.lease_seconds,
                              gpu_budget_seconds=self.config.gpu_budget_seconds if self.gpu else 0.0,
                              state=self._gpu_stage_state(True))
            if job is None:
                if self._hand_back_over_budget(db, sub_id):
                    return False
                queue.record_pending(db, self._record)
                return False
        self._grade_claimed(job)
        return True

    def _gpu_stage_state(self, compiled: bool) -> str:
        """A compiled job on a GPU shows ``checking`` from its claim: its compile is behind it (the
        repeat inside grade() is a cache hit), so the learner never sees ``compiling`` twice."""
        return states.CHECKING if compiled and self.gpu else states.COMPILING

    def _hand_back_over_budget(self, db: Session, sub_id: int) -> bool:
        """A job not claimed because its learner is over the GPU budget waits for the window."""
        from app.submissions.gpu_budget import waiting_row

        row = db.get(Submission, sub_id, populate_existing=True)
        if row is None or not self.gpu or self.over_budget is None:
            return False
        wait = waiting_row(db, row, self.config.gpu_budget_seconds, utcnow())
        if wait is None:
            return False
        self.over_budget(db, row, wait.until)
        db.commit()
        log.info("learner %s used %.0f s of GPU in the last hour; submission %s waits until %s",
                 row.user_id, wait.used_seconds, row.id, wait.until)
        self.notify(row.id)
        return True

    def compile_claimed(self, sub_id: int, compile_first: CompileFirst, on_compiled: Callable[[Session, Submission], None],
                        on_long: Callable[[Session, Submission], None] | None = None, long: bool | None = None) -> str:
        """The pipeline's compile stage (on CPU, before the job may take a GPU): claim, then
        ``compile_first(exercise_id, source, launch, on_phase) -> Result | None``. A Result (policy,
        launch or compile error, compile timeout) is final: stored and recorded like any other, and the
        job never reaches a GPU. None: it compiled; the row waits for a GPU again and
        ``on_compiled(db, row)`` defers its grading job in that same transaction. ``LongCompile`` raised:
        the row waits again as a long compile and ``on_long(db, row)`` holds it back (the caller commits).
        ``long``: whether the caller chose the CPU limit for a long compile (True) or a first slice (False);
        one box: the row is claimed only while it is still so (another slot may have run its slice since).
        Returns "final", "compiled", "long" or "skipped" (already final, or no longer as the caller saw it)."""
        import json

        if self.gpu is None or not self.lane:
            self._setup()
        with self.session_factory() as db:
            # One box: the row was picked, not handed over, so only a free row or a lapsed lease is
            # taken, and only while it still needs its compile (a second slot may have picked it too).
            only = queue.to_compile(utcnow()) if self.uses_lanes else None
            if only is not None and long is not None:
                marked = Submission.long_compile_ms.is_not(None) if long else Submission.long_compile_ms.is_(None)
                only = and_(only, marked)
            job = queue.claim(db, sub_id, lane=self.lane, owner=self.owner, gpu=bool(self.gpu),
                              lease_seconds=self.config.lease_seconds, count_attempt=False,
                              take_over_live=not self.uses_lanes, only=only)
            if job is None:
                queue.record_pending(db, self._record)
                return "skipped"
        self.notify(job.id)
        if self.uses_lanes and self._keeper is None:  # one box: the lease says this slot is alive
            self._keeper = threading.Thread(target=self._keep_leases, name="compile-lease-keeper", daemon=True)
            self._keeper.start()
        started = time.perf_counter()
        try:
            launch = json.loads(job.launch) if job.launch else None
        except ValueError:
            launch = None
        self.current = job.id
        long = False
        try:
            result = compile_first(job.exercise_id, job.source, launch, None)
        except LongCompile:
            result, long = None, True
        except Exception:
            log.exception("compile stage of submission %s failed", job.id)
            result = abandoned_result(job.exercise_id)
        finally:
            self.current = None
        ms = int((time.perf_counter() - started) * 1000)
        if long:
            with self.session_factory() as db:
                row = queue.long_compile(db, job.id, self.owner, ms)
                if row is not None and on_long is not None:
                    on_long(db, row)
                db.commit()
            self.notify(job.id)
            return "long"
        if result is not None:
            with self.session_factory() as db:
                queue.set_compile_ms(db, job.id, ms)
            self._finish(job, result)
            return "final"
        with self.session_factory() as db:
            row = queue.compiled(db, job.id, self.owner, ms)
            if row is not None:
                on_compiled(db, row)
            db.commit()
        self.notify(job.id)
        return "compiled"

    def _grade_claimed(self, job: Submission) -> None:
        """A claimed job: give up after max_attempts claims (it kept killing its graders), else grade it."""
        claimed = time.perf_counter()
        self.notify(job.id)
        if job.attempts > self.config.max_attempts:
            log.error("submission %s was claimed %s times; giving up", job.id, job.attempts)
            self._finish(job, abandoned_result(job.exercise_id))
            return
        self._run(job, claimed)

    def _run(self, job: Submission, claimed: float) -> None:
        import json

        shown = {"state": job.state}

        def on_phase(phase: str) -> None:
            state = states.PHASE_TO_STATE.get(phase)
            # Shown states only move forward: a compiled job claimed as checking ignores the
            # validating/compiling phases of grade()'s cached compile.
            if state is None or states.RUNNING.index(state) <= states.RUNNING.index(shown["state"]):
                return
            shown["state"] = state
            try:
                with self.session_factory() as db:
                    queue.set_state(db, job.id, self.owner, state, self.config.lease_seconds)
            except DATABASE_ERRORS:
                if self.uses_lanes:
                    raise
                # Only what the learner's page shows: the grade goes on, its result is stored later.
                log.warning("submission %s: phase %s not shown (database unreachable)", job.id, state)
                return
            self.notify(job.id)

        self.current = job.id
        try:
            try:
                with self.session_factory() as db:
                    queue.mark_started(db, job.id, self.owner)
            except DATABASE_ERRORS as exc:
                if self.uses_lanes:
                    raise
                raise RetryLater(f"database: {str(exc)[:120]}") from exc
            self.stats.dequeue_to_engine_ms.append((time.perf_counter() - claimed) * 1000)
            try:
                launch = json.loads(job.launch) if job.launch else None
            except ValueError:
                launch = None
            result = self.grade(job.exercise_id, job.source, launch, on_phase)
        except RetryLater:
            raise
        except Exception:
            log.exception("grading submission %s failed", job.id)
            from kernels.engine.result import Message

            result = Result(verdict=Verdict.UNAVAILABLE, exercise=job.exercise_id,
                            message=Message("UNAVAILABLE_INTERNAL", {"stage": "dispatcher"}))
        finally:
            self.current = None
        self._finish(job, result)
        self.stats.jobs += 1

    def _finish(self, job: Submission, result: Result) -> None:
        verdict = Verdict(result.verdict).value  # a Verdict, or its value from a stored Result
        awaiting = verdict == "UNAVAILABLE" and result.message.code == "UNAVAILABLE_NO_GPU"
        state = states.AWAITING_GPU if awaiting else states.DONE
        if awaiting and not self.uses_lanes:
            # Cluster mode: no row waits for "some GPU later" without a job. It waits as queued, its
            # job is retried for a worker that has a GPU, and this worker stops (app/cluster/worker.py).
            self._store(lambda db: queue.release(db, job.id, self.owner))
            self.gpu = False
            raise RetryLater("no usable GPU on this worker")
        if awaiting and self.gpu:
            # Told to use a GPU, but the engine found none: stop claiming awaiting_gpu jobs, or we
            # would take the same ones back forever.
            log.error("lane %s expects a GPU but the engine has none; compiling only from now on", self.lane)
            self.gpu = False
        from app.submissions.gpu_budget import gpu_ms_of

        def store(db: Session) -> bool:
            stored = queue.finish(db, job.id, self.owner, state, result.to_json(), verdict, gpu_ms=gpu_ms_of(result))
            if stored and state == states.DONE:
                # A second, separate transaction: the verdict is safe even if paying XP fails;
                # record_pending() retries rows left with recorded = False.
                queue.record_pending(db, self._record)
            elif stored:
                self._record_compiled(db, job)
            return stored

        stored = self._store(store)
        if not stored:
            log.warning("lease on submission %s was lost; its result is dropped", job.id)
        self.notify(job.id)

    def _record_compiled(self, db: Session, job: Submission) -> None:
        """Waiting for a GPU means it compiled: the compile's achievement now, in its own transaction
        (the state is stored already; a failure here costs only the achievement's timing: the grading
        records the compile again)."""
        from app.progress.grading import record_compiled

        try:
            record_compiled(db, job.user_id, job.exercise_id, job.id, lesson_slugs=self.lesson_slugs())
            db.commit()
        except Exception:
            db.rollback()
            log.exception("could not record the compile of submission %s", job.id)

    def _store(self, write: Callable[[Session], Any]) -> Any:
        """One write of a job's outcome. In cluster mode a database that does not answer is waited
        for (``store_patience_seconds``, with backoff): the result cost a GPU run and the database
        usually comes back (a restart, a failover). Past that the job is retried (RetryLater); once
        the worker drains (``drain``) it waits at most ``DRAIN_STORE_SECONDS`` more."""
        started = time.monotonic()
        delay, deadline = 0.5, started + self.config.store_patience_seconds
        while True:
            try:
                with self.session_factory() as db:
                    return write(db)
            except DATABASE_ERRORS as exc:
                if self.uses_lanes:
                    raise
                if self._drain_started is not None:  # 10 s more from the drain, or from this store if later
                    deadline = min(deadline, max(self._drain_started, started) + DRAIN_STORE_SECONDS)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RetryLater(f"database: {str(exc)[:120]}") from exc
                log.warning("database unreachable while storing a result; retrying in %.1f s", min(delay, left))
                time.sleep(min(delay, left))
                delay = min(delay * 2, 10.0)

    def _record(self, db: Session, row: Submission) -> None:
        from app.progress.grading import record_grading_result
        from kernels.engine.result import Result

        assert row.result is not None  # recorded rows are done, and a done row holds its Result
        record_grading_result(db, row.user_id, row.exercise_id, row.id, Result.from_json(row.result),
                              lesson_slugs=self.lesson_slugs())
        from app.submissions.reviews import rebalance_after_grading

        # a grader's earlier override of this exercise may need XP to follow the new verdict
        rebalance_after_grading(db, row.user_id, row.exercise_id, row.id)

    # ---- leases while a job runs -----------------------------------------------------------

    def _keep_leases(self) -> None:
        interval = max(0.05, self.config.lease_seconds / 3)
        due = time.monotonic() + interval
        while True:
            stopping = self._stop.is_set()
            if stopping and (self._thread is None or not self._thread.is_alive()):
                return
            # While stopping, look often: the job may end any moment, and stop() waits for us.
            self._stop.wait(0.05 if stopping else max(0.0, due - time.monotonic()))
            if time.monotonic() < due:
                continue
            due = time.monotonic() + interval
            try:
                if self.current is not None:
                    if self.uses_lanes and not self.compile_slot:
                        self.hold_lane(force=True)
                    with self.session_factory() as db:
                        queue.renew(db, self.current, self.owner, self.config.lease_seconds)
            except Exception:
                log.exception("lease renewal failed")
