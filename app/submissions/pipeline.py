"""The grading pipeline on one box: the embedded lease queue (the submissions table) as the transport
of the same two stages that cluster mode runs over procrastinate (app/cluster).

1. Compile slots (``slots`` threads, CPU): each takes the fairest row that still needs its compile
   (``queue.next_to_compile``: a learner's oldest unfinished row only, so one compile at a time per
   learner and their jobs in order) and runs the compile stage (app/submissions/compiling.py: the
   compile budget, the cool-down of compile bombs, the sandboxed compile). A compile error or
   timeout is final there; the GPU lane never sees it.
2. The GPU stage: the lane's ``Dispatcher`` with ``compiled_only``, so it claims only compiled rows,
   and its ``grade()`` gets a compiler on the compile slots' cubin cache (``CompilerPool.grade_on``):
   the GPU stage checks and times the kernel the compile stage built, it does not compile again.

Leases and retries are the queue's: a slot or a GPU lane that dies leaves its row leased, and the row
is taken over once its lease runs out (compile rows by a compile slot, compiled rows by the GPU
stage); fairness is ``queue.fair_order`` in both stages.

A box always has at least one compile slot (``MKC_COMPILE_SLOTS=0`` means one here: in cluster mode
it marks a worker that leaves compiling to others, and on one box there are no others).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.submissions import lanes, queue
from app.submissions.compiling import CompilerPool, CompileStage
from app.submissions.dispatcher import CompileFirst, Dispatcher, DispatcherConfig, Grade, Notify
from app.submissions.models import Submission

log = logging.getLogger(__name__)


class LeaseQueue:
    """The pipeline's transport on one box (app/submissions/compiling.py ``Transport``): the table is
    the queue, so there is nothing to send. A held-back row is skipped by ``queue.to_compile`` until
    its ``waiting_until``; a compiled row is what the GPU stage claims (``compiled_only``), woken by
    ``OneBoxPipeline.compile_step`` once it is committed."""

    def hold(self, db: Session, row: Submission, until: dt.datetime, ticket: Any) -> None:
        return None

    def compiled(self, db: Session, row: Submission, ticket: Any) -> None:
        return None


class OneBoxPipeline:
    """Compile slots and the GPU stage in this process; ``start``/``stop``/``wake``/``step`` like a Dispatcher."""

    def __init__(self, session_factory: sessionmaker[Session], config: DispatcherConfig, *, slots: int,
                 compile_budget_seconds: float, cache_dir: Path | None = None,
                 lesson_slugs: Callable[[], frozenset[str]] = frozenset, notify: Notify | None = None,
                 grade: Grade | None = None, compile_first: CompileFirst | None = None,
                 compile_slice_seconds: float = 0.0) -> None:
        self.session_factory = session_factory
        self.slots = max(1, slots)
        self.pool = CompilerPool(self.slots, cache_dir) if grade is None or compile_first is None else None
        self.gpu = Dispatcher(session_factory, dataclasses.replace(config, compiled_only=True),
                              lesson_slugs=lesson_slugs, notify=notify,
                              grade=grade or (self.pool.grade_on if self.pool else None))
        compile_config = dataclasses.replace(config, lane=f"{lanes.HOST}:compile", gpu=False, compiled_only=False,
                                             gpu_budget_seconds=0.0)
        slot_dispatchers = []
        for _ in range(self.slots):
            slot = Dispatcher(session_factory, compile_config, lesson_slugs=lesson_slugs, notify=notify)
            slot.compile_slot = True
            slot_dispatchers.append(slot)
        self.slot_dispatchers = slot_dispatchers
        first = compile_first or (self.pool.compile_first if self.pool else None)
        assert first is not None
        self.stage = CompileStage(session_factory, slot_dispatchers, first, compile_budget_seconds, LeaseQueue(),
                                  compile_slice_seconds)
        self.poll_seconds = config.poll_seconds
        self._stop = threading.Event()
        self._wake = threading.Condition()
        self._threads: list[threading.Thread] = []

    # ---- one step of each stage (the threads loop on these; tests and ``--once`` call them) ---------

    def compile_step(self) -> bool:
        """Compile (or hold back) the fairest row that needs its compile. True if there was one.
        Only while this process holds its GPU lane: of several web processes (``serve --workers N``)
        one compiles and grades, the others stand by, so a host runs ``slots`` compiles per GPU."""
        if not self.gpu.holds_lane:
            return False
        with self.session_factory() as db:
            sub_id = queue.next_to_compile(db)
        if sub_id is None:
            return False
        outcome = self.stage.run(None, sub_id)
        if outcome == "compiled":
            self.gpu.wake()
        return True

    def step(self) -> bool:
        """One GPU job (taking the lane first), else one compile. True if either ran."""
        return self.gpu.step() or self.compile_step()

    # ---- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        self.gpu.start()
        for n in range(self.slots):
            thread = threading.Thread(target=self._compile_forever, name=f"compile-slot-{n}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _compile_forever(self) -> None:
        while not self._stop.is_set():
            try:
                ran = self.compile_step()
            except Exception:
                log.exception("compile slot step failed")
                ran = False
            if not ran:
                with self._wake:
                    self._wake.wait(self.poll_seconds)

    def wake(self) -> None:
        """A job was stored in this process: the compile slots look now."""
        with self._wake:
            self._wake.notify_all()
        self.gpu.wake()

    def stop(self, timeout: float = 10.0) -> bool:
        self._stop.set()
        self.wake()
        finished = self.gpu.stop(timeout)
        for thread in self._threads:
            thread.join(timeout)
            finished = finished and not thread.is_alive()
        for slot in self.slot_dispatchers:
            finished = slot.stop(timeout) and finished
        if self.pool is not None and finished:
            self.pool.close()
        return finished
