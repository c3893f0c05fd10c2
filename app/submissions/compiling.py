"""The compile stage of the grading pipeline, the same in both deployments: source policy, launch checks
and the sandboxed NVRTC compile run in CPU slots before a job may take a GPU. Only how a job reaches a
slot differs (the one-box pipeline's threads, app/submissions/pipeline.py; procrastinate's compile
queue in cluster mode, app/cluster/compile.py), behind ``Transport``: ``hold`` (make a held-back row
come back at a time) and ``compiled`` (hand the compiled row to the GPU stage).

- A pool of ``slots`` compilers (each the engine's own ``Compiler`` with its sandboxed worker
  process), all sharing one cubin cache (memory + a folder on this host, so every process of the
  host finds a cubin its neighbours made). The GPU stage's ``grade()`` is given a compiler on the
  same cache (``grade_on``): the compile it repeats is a cache hit, and the kernel is the one that
  was checked here, so the GPU stage only checks and times.
- No second compile path: ``compile_first`` runs the engine's own ``grade()`` and stops it right
  after a successful compile (before it would look for a GPU). Every refusal — policy, launch,
  compile error, compile timeout — is the Result ``grade()`` itself returns, final at once: a
  compile bomb spends its timeout in a CPU slot and never holds a GPU.
- Per learner: a compile budget per hour (``budget_seconds``): a learner past it waits (the row
  comes back when the budget frees) instead of taking slots from the others.
- Slots that bombs cannot fill: a learner whose compile timed out in the last hour (a likely compile
  bomb) is "cooling down"; cooling learners share at most ``slots - 1`` of the slots, so with two or
  more slots one always serves everyone else. A cooling learner's job that finds those slots taken
  comes back after ``COOLDOWN_RETRY_SECONDS`` instead of holding a slot.
- Time-slicing, so that even a first bomb is marked early: every compile first runs with a short CPU
  slice (``slice_seconds``, MKC_COMPILE_SLICE_SECONDS, far above what any honest kernel here needs). A
  compile that runs past it is not final: the row is marked a long compile (``long_compile_ms``) and
  held back ("compile_long"); it comes back at its fair turn for one compile with the full limit
  (MKC_COMPILE_CPU_S), and that compile takes a slot like a cooling learner's (at most ``slots - 1``).
  Its verdict is that compile's: COMPILE_TIMEOUT for a bomb (its learner is then cooling), a graded
  kernel for one that only compiles slowly. Both compiles count in the learner's compile budget.
  The bound: a first bomb holds a slot for one slice, never one full compile timeout (N first bombs
  arriving together cost an honest compile up to N/slots slices; with one slot, cooling and long
  compiles share it, so a full timeout again). A long compile cancelled while it waits makes its
  learner cooling like a timed-out one, so cancelling gives no fresh uncapped slice.
- A held-back row says why and until when (``submission.waiting_reason`` / ``waiting_until``): the
  learner's page shows it in their language.
"""
from __future__ import annotations

import datetime as dt
import logging
import queue as queue_module
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, cast

from sqlalchemy.orm import Session

from app.submissions.models import Submission

log = logging.getLogger(__name__)
COOLDOWN_RETRY_SECONDS = 5


def _usable_slice(seconds: float) -> float:
    """The first slice in CPU seconds, or 0 (off) unless it is shorter than a whole compile's limit."""
    from kernels.engine.settings import engine_settings

    full = engine_settings().compile_cpu_s
    if seconds > 0 and seconds >= full:
        log.warning("MKC_COMPILE_SLICE_SECONDS=%s is not below MKC_COMPILE_CPU_S=%s: compiles are not sliced",
                    seconds, full)
    return seconds if 0 < seconds < full else 0.0


class Transport(Protocol):
    """How a row reaches the stages; the rest of the pipeline is the same in both deployments.
    ``ticket``: what the transport handed the compile stage with the row (cluster: its job)."""

    def hold(self, db: Session, row: Submission, until: dt.datetime, ticket: Any) -> None:
        """The row was held back until ``until`` (budget, cool-down): make it come back then.
        In the caller's transaction (the caller commits)."""

    def compiled(self, db: Session, row: Submission, ticket: Any) -> None:
        """The row compiled: hand it to the GPU stage, in the transaction that marks it compiled."""


class _Compiled(Exception):
    """Raised by the stopping compiler after a successful compile: grade() must not go on to a GPU."""


class _StopAfterCompile:
    """Looks like the engine's Compiler to grade(); compiles for real, then stops grade() there."""

    def __init__(self, real: Any, cpu_s: float | None = None) -> None:
        self.real = real
        self.arch = real.arch
        self.worker = real.worker
        self.cpu_s = cpu_s

    def compile(self, *args: Any, **kwargs: Any) -> None:
        # a CompileError goes back to grade(), which makes its Result
        self.real.compile(*args, **kwargs, cpu_s=self.cpu_s)
        raise _Compiled


class CompilerPool:
    """``slots`` engine compilers sharing one cubin cache; ``take()``/``give()`` around each compile."""

    def __init__(self, slots: int, cache_dir: Path | None = None) -> None:
        from kernels.engine.compiler.cache import CubinCache
        from kernels.engine.compiler.service import Compiler
        from kernels.engine.settings import engine_settings

        folder = engine_settings().cubin_cache_dir or (str(cache_dir) if cache_dir else None)
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
        self.cache = CubinCache(disk_dir=folder)
        self._make: Callable[[], Any] = lambda: Compiler(cache=self.cache, lineinfo=True)  # insight: SASS by line
        self._idle: queue_module.SimpleQueue[Any] = queue_module.SimpleQueue()
        for _ in range(max(1, slots)):
            self._idle.put(None)  # compilers start lazily, on first use
        self.for_gpu: Any = None  # the GPU stage's compiler (same cache), made on first use

    def compile_first(self, exercise_id: str, source: str, launch: Any, on_phase: Any = None,
                      cpu_s: float | None = None) -> Any:
        """None when the kernel compiled (its cubin is in the cache); else the engine's final Result.
        ``cpu_s``: this compile's CPU limit when below MKC_COMPILE_CPU_S (the first slice)."""
        from kernels.engine import grade

        compiler = self._idle.get()
        if compiler is None:
            compiler = self._make()
        try:
            return grade(exercise_id, source, launch, on_phase,
                         compiler=cast(Any, _StopAfterCompile(compiler, cpu_s)))
        except _Compiled:
            return None
        finally:
            self._idle.put(compiler)

    def gpu_compiler(self) -> Any:
        if self.for_gpu is None:
            self.for_gpu = self._make()
        return self.for_gpu

    def grade_on(self, exercise_id: str, source: str, launch: Any, on_phase: Any) -> Any:
        """The GPU stage's grade(): its compile finds the compile stage's cubin in the shared cache."""
        from kernels.engine import grade

        return grade(exercise_id, source, launch, on_phase=on_phase, compiler=self.gpu_compiler())

    def close(self) -> None:
        while True:
            try:
                compiler = self._idle.get_nowait()
            except queue_module.Empty:
                break
            if compiler is not None:
                compiler.close()
        if self.for_gpu is not None:
            self.for_gpu.close()


class CompileStage:
    """Runs one submission's compile: budget and cool-down checks, then ``Dispatcher.compile_claimed``."""

    def __init__(self, session_factory: Any, dispatchers: list[Any], compile_first: Any, budget_seconds: float,
                 transport: Transport, slice_seconds: float = 0.0) -> None:
        self.session_factory = session_factory
        self._idle: queue_module.SimpleQueue[Any] = queue_module.SimpleQueue()
        for dispatcher in dispatchers:  # one per slot: each claims under its own lease owner
            self._idle.put(dispatcher)
        self.compile_first = compile_first
        self.budget_seconds = budget_seconds
        self.transport = transport
        self.slice_seconds = _usable_slice(slice_seconds)
        # Cooling learners (a compile timed out this hour) may hold this many slots at once.
        self.cooling_cap = max(1, len(dispatchers) - 1)
        self._cooling = 0
        self._cooling_lock = threading.Lock()

    def _take_cooling_slot(self) -> bool:
        with self._cooling_lock:
            if self._cooling >= self.cooling_cap:
                return False
            self._cooling += 1
            return True

    def _give_cooling_slot(self) -> None:
        with self._cooling_lock:
            self._cooling -= 1

    def run(self, ticket: Any, submission_id: int) -> str:
        """``ticket``: what the transport needs back in ``hold``/``compiled`` (cluster: the job; one box: None).
        Returns "final", "compiled", "long" (ran past its slice; comes back), "skipped", "over_budget" or
        "cooling_down"."""
        from app.core.clock import utcnow
        from app.submissions import queue

        with self.session_factory() as db:
            row = db.get(Submission, submission_id)
            if row is None:
                return "skipped"
            hour_ago = utcnow() - dt.timedelta(hours=1)
            used, oldest = queue.compile_seconds_used(db, row.user_id, hour_ago)
            if used >= self.budget_seconds and oldest is not None:
                # Past the hourly budget: wait until its oldest compile leaves the window.
                when = oldest + dt.timedelta(hours=1)
                self._hold_back(db, row, ticket, "compile_budget", when)
                log.warning("learner %s used %.0f s of compile in the last hour; submission %s waits until %s",
                            row.user_id, used, row.id, when)
                return "over_budget"
            # A long compile's compile with the full limit is a likely bomb's: it shares the cooling slots.
            long = row.long_compile_ms is not None
            timed_out = queue.compile_timed_out(db, row.user_id, hour_ago, excluding=row.id)
            cooling = long or timed_out
            if cooling and not self._take_cooling_slot():
                # The learner's page says the first reason that holds: their last compile timed out (with
                # when to try again), else this compile needs the full limit.
                self._hold_back(db, row, ticket, "compile_cooldown" if timed_out else "compile_long",
                                utcnow() + dt.timedelta(seconds=COOLDOWN_RETRY_SECONDS))
                return "cooling_down"
        dispatcher = self._idle.get()
        try:
            return cast(str, dispatcher.compile_claimed(
                submission_id, self.compile_first if long or not self.slice_seconds else self._first_slice,
                lambda db, row: self.transport.compiled(db, row, ticket),
                # Back at its fair turn: learners not served since go first (queue.fair_order).
                on_long=lambda db, row: self._hold_back(db, row, ticket, "compile_long", utcnow()), long=long))
        finally:
            self._idle.put(dispatcher)
            if cooling:
                self._give_cooling_slot()

    def _first_slice(self, exercise_id: str, source: str, launch: Any, on_phase: Any) -> Any:
        """A compile's first try, with ``slice_seconds`` of CPU: running past it raises LongCompile."""
        from app.submissions.dispatcher import LongCompile
        from kernels.engine import codes

        result = self.compile_first(exercise_id, source, launch, on_phase, cpu_s=self.slice_seconds)
        if result is not None and result.message.code == codes.COMPILE_TIMEOUT:
            raise LongCompile
        return result

    def _hold_back(self, db: Session, row: Submission, ticket: Any, reason: str, until: dt.datetime) -> None:
        """The row waits past its turn (its page says why and until when); the transport brings it back then."""
        from app.submissions import queue

        queue.hold_back(db, row.id, reason, until)
        self.transport.hold(db, row, until, ticket)
        db.commit()
