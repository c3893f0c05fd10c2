"""Parent side of GPU grading, the pool: ``run_job(exercise, compiled, launch_plan, on_phase) -> Result``.

One job = one fresh worker process (spawned with exec, never forked after CUDA init), sandboxed
by bubblewrap (sandbox.py), which exits after the job. To keep its start-up (import CuPy, create
the context, cuBLAS handle: about a second) off the learner's clock, spare workers are started as
soon as the current job is handed over: they import on CPU while the GPU works; a spare makes its
CUDA context and its first launches only once the job in hand has timed its last round (the worker
says "timed"), and the next job waits before its first timed round until a context being made is
made: nothing of a spare runs on the GPU while a job is being timed. Only one
job uses the GPU at a time: an flock on a lock file, shared by every process on this machine
(several web workers, the benchmark commands): gpu_lock.py.

Deadlines: the worker announces each learner launch ("watch" with a limit); the parent kills
the whole process group when a watch or the job's own deadline expires: TIME_LIMIT.

The pieces: one worker process (start, protocol, device output capture, kill) is
worker_process.py; the job sent to it and the Result made of its answer are jobs.py; the
reference kernels' trusted compile is trusted_compile.py. This module keeps the pool (spare
workers), the deadlines and ``run_job``.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .. import codes
from ..process_wide import ProcessWide
from ..result import Message, Phase, Result, Verdict
from ..sandboxing import unsafe_unsandboxed_allowed
from ..settings import engine_settings
from . import sandbox
from .gpu_lock import GpuLock
from .jobs import build_job, to_result
from .worker_process import Event, Job, Limits, Worker, new_worker

if TYPE_CHECKING:
    from ..compiler import CompiledKernel
    from ..exercise import Exercise
    from ..launch import LaunchPlan

log = logging.getLogger(__name__)


# Spare workers kept per runner. A worker's imports (about 0.6 s of CPU) take longer than a job's
# GPU time (about 0.4 s): the third spare has been importing for two jobs when its turn to make a
# context comes.
SPARE_WORKERS = 3
# A spare makes its CUDA context in 0.1-0.5 s; the job waiting for it before its first timed round
# waits at most this long (a spare slower than that is broken, and is killed).
SPARE_READY_WAIT_S = 2.0


class GpuRunner:
    def __init__(self, limits: Limits | None = None, *, keep_spare: bool | None = None):
        self.limits = limits or Limits()
        self.lock = GpuLock()
        self.keep_spare = engine_settings().gpu_spare if keep_spare is None else keep_spare
        self._spares: list[Worker] = []  # the next job takes the first
        self._spare_mutex = threading.Lock()
        self._warming: threading.Thread | None = None
        # where the last job's time went, in ms (waits, the job, the worker's reaping; the worker's
        # own start-up and stages): for benchmarks, never part of a Result
        self.last_profile: dict[str, Any] = {}

    # Spares start (imports, on CPU) as soon as a job is handed over (``_preload``). What a spare does
    # on the GPU never overlaps a timed round: the next-but-one spare makes its context once the job
    # in hand has timed its last round (``_after_timed``), and the job after it waits before its
    # first timed round until that context is made (``_before_timing``); the next spare makes its
    # first launches ("prime") after the last timed round too. A context made beside timed kernels
    # moved their speedups by up to ~1 %. With no spare at hand (the first job, or after a
    # failure) one is warmed and primed here with the GPU lock held.
    def _warm_spare(self) -> None:
        try:
            with self.lock:
                with self._spare_mutex:
                    w = self._spares.pop(0) if self._spares else None
                if w is None or not w.alive():
                    if w is not None:
                        w.kill()
                    w = new_worker(self.limits)
                try:
                    w.wait_ready(self.limits.start_s)
                    w.prime()  # nothing is timed while this thread holds the lock
                except Exception:
                    log.warning("spare GPU worker failed to start: %s", bytes(w.stderr[-2000:]))
                    w.kill()
                    return
            with self._spare_mutex:
                self._spares.insert(0, w)
                extra = self._spares[SPARE_WORKERS:]
                del self._spares[SPARE_WORKERS:]
            for old in extra:
                old.kill()
        except Exception:
            log.exception("warming a spare GPU worker failed")

    def _preload(self) -> None:
        """Top the spares up (they import while the job in hand runs). A next spare that was never
        told to warm (the first jobs) makes its context now, before the job's first timed round."""
        if not self.keep_spare:
            return
        with self._spare_mutex:
            dead = [w for w in self._spares if not w.alive()]
            self._spares = [w for w in self._spares if w.alive()]
            missing = SPARE_WORKERS - len(self._spares)
        for w in dead:
            w.kill()
        started = []
        for _ in range(missing):
            try:
                started.append(new_worker(self.limits, deferred=True))
            except Exception:
                log.exception("preloading the next GPU worker failed")
                break
        with self._spare_mutex:
            self._spares.extend(started)
            head = self._spares[0] if self._spares else None
        self._tell(head, Worker.start_warming)

    def _before_timing(self, w: Worker) -> float:
        """The job in hand checked correctness and is about to time: a spare making its context
        finishes first (one that takes longer than SPARE_READY_WAIT_S is broken and killed, so it
        cannot disturb the timing either); then the job may time ("time" on its stdin). Returns the
        seconds waited: the job's own deadline moves by them."""
        t0 = time.monotonic()
        with self._spare_mutex:
            making = [s for s in self._spares if s.warm_sent and s.ready is None and s.alive()]
        for spare in making:
            try:
                spare.wait_ready(max(0.0, t0 + SPARE_READY_WAIT_S - time.monotonic()))
            except (TimeoutError, EOFError, RuntimeError, ValueError, OSError):
                log.warning("a spare GPU worker did not make its context in %.0f s; killed: %s",
                            SPARE_READY_WAIT_S, bytes(spare.stderr[-2000:]))
                spare.kill()  # _take_spare and _preload drop dead spares
        w.release_timing()
        return time.monotonic() - t0

    def _after_timed(self) -> None:
        """The job in hand timed its last round (only host checks and its Result are left): the next
        worker makes its first launches and the one after it its context now, in that time."""
        with self._spare_mutex:
            head, second = (self._spares + [None, None])[:2]
        self._tell(head, Worker.prime)
        self._tell(second, Worker.start_warming)

    @staticmethod
    def _tell(spare: Worker | None, what: Callable[[Worker], None]) -> None:
        if spare is not None and spare.alive():
            try:
                what(spare)
            except OSError:  # it died; _take_spare and _preload start others
                log.warning("a preloaded GPU worker could not be told to %s", what.__name__)

    def warm_in_background(self) -> None:
        if not self.keep_spare:
            return
        with self._spare_mutex:
            head = self._spares[0] if self._spares else None
            if head is not None and head.alive() and head.ready is not None:
                return
            if self._warming is not None and self._warming.is_alive():
                return
            self._warming = threading.Thread(target=self._warm_spare, daemon=True)
            self._warming.start()

    def _take_spare(self) -> Worker | None:
        """The first spare, warmed (call with the GPU lock held); None when there is none that works."""
        with self._spare_mutex:
            w = self._spares.pop(0) if self._spares else None
        if w is None:
            return None
        if w.alive() and w.ready is None:
            try:
                w.wait_ready(self.limits.start_s)
            except (TimeoutError, EOFError, RuntimeError, ValueError):
                log.warning("preloaded GPU worker failed to start: %s", bytes(w.stderr[-2000:]))
        if not w.alive() or w.ready is None:
            w.kill()
            return None
        return w

    def shutdown(self) -> None:
        if self._warming is not None:
            self._warming.join(timeout=self.limits.start_s)
        with self._spare_mutex:
            spares, self._spares = self._spares, []
        for w in spares:
            w.kill()

    def run(self, job: Job, on_event: Callable[[Event], None]) -> tuple[Event, Worker]:
        """Run one job; returns (final event, worker). Holds the GPU lock throughout. ``on_event``
        (the caller's phase hook: a database write where a learner's page shows the phase) runs on a
        thread of its own, so the job never waits for it; every call has ended when this returns. A
        hook that fails is logged and not called again for this job: progress shown to a learner never
        changes a grade."""
        relay = HookRelay(on_event)
        try:
            return self._run_locked(job, relay)
        finally:
            relay.close()

    def _run_locked(self, job: Job, on_event: Callable[[Event], None]) -> tuple[Event, Worker]:
        marks = [time.perf_counter()]
        if self._warming is not None and self._warming.is_alive():
            self._warming.join(timeout=self.limits.start_s)
        with self.lock:
            marks.append(time.perf_counter())
            w = self._take_spare()
            cold = w is None
            if w is None:
                w = new_worker(self.limits)
                try:
                    w.wait_ready(self.limits.start_s)
                except (TimeoutError, EOFError, RuntimeError, ValueError) as exc:
                    w.kill()
                    return {"ev": "broken", "stage": "start", "error": str(exc)[:300],
                            "stderr": bytes(w.stderr[-1500:]).decode(errors="replace")}, w
            marks.append(time.perf_counter())
            for attempt in range(2):
                try:
                    w.send_job({**job, "gate": True})  # the worker waits for "time" (_before_timing)
                    if attempt == 0:
                        self._preload()
                    final = self._watch(w, on_event)
                except (BrokenPipeError, OSError) as exc:
                    final = {"ev": "crashed", "returncode": None, "phase": "start", "started": False,
                             "stderr": str(exc)}
                finally:
                    marks.append(time.perf_counter())
                    if w.alive():
                        w.kill()
                    else:
                        w.close()
                # A worker that died before it even acknowledged the job ran no learner code:
                # retry once on a fresh one instead of blaming the submission.
                if final.get("ev") != "crashed" or final.get("started", True) or attempt:
                    break
                log.warning("GPU worker died before starting the job (rc=%s); retrying",
                            final.get("returncode"))
                cold = True
                w = new_worker(self.limits)
                try:
                    w.wait_ready(self.limits.start_s)
                except (TimeoutError, EOFError, RuntimeError, ValueError) as exc:
                    w.kill()
                    final = {"ev": "broken", "stage": "start", "error": str(exc)[:300]}
                    break
            final["cold_start"] = cold
            marks.append(time.perf_counter())
        self.warm_in_background()
        self.last_profile = {
            "wait_lock_ms": (marks[1] - marks[0]) * 1e3, "wait_spare_ms": (marks[2] - marks[1]) * 1e3,
            "job_ms": (marks[-2] - marks[2]) * 1e3, "reap_ms": (marks[-1] - marks[-2]) * 1e3, "cold_start": cold,
            "startup": dict((w.ready or {}).get("startup_ms") or {}), "worker": dict(final.get("profile_ms") or {})}
        final["runner_profile"] = self.last_profile  # this job's own, even if another thread runs one next
        return final, w

    def _watch(self, w: Worker, on_event: Callable[[Event], None]) -> Event:
        job_deadline = time.monotonic() + self.limits.job_s
        watch_deadline = None
        watch_limit = self.limits.launch_s
        watch_what = None
        phase = "checking"
        started = False  # the worker acknowledged the job (its first "phase" event)
        while True:
            now = time.monotonic()
            deadline = job_deadline if watch_deadline is None else min(job_deadline, watch_deadline)
            try:
                ev = w.next_event(deadline - now)
            except EOFError:
                w.proc.wait(timeout=10)
                return {"ev": "crashed", "returncode": w.proc.returncode, "phase": phase,
                        "started": started,
                        "stderr": bytes(w.stderr[-1500:]).decode(errors="replace")}
            except ValueError as exc:
                return _off_protocol(phase, exc)
            if ev is None:
                limit = (self.limits.job_s if watch_deadline is None or job_deadline <= watch_deadline
                         else watch_limit)
                w.kill()
                return {"ev": "timeout", "seconds": limit, "phase": phase, "what": watch_what}
            kind = ev.get("ev")
            if kind == "watch":
                try:
                    watch_limit = float(ev.get("limit", self.limits.launch_s))
                except (TypeError, ValueError) as exc:
                    return _off_protocol(phase, exc)
                watch_deadline = time.monotonic() + watch_limit
                watch_what = ev.get("what")
            elif kind == "unwatch":
                watch_deadline = None
            elif kind == "phase":
                started = True
                phase = ev.get("name", phase)
                on_event(ev)
            elif kind == "checked":
                job_deadline += self._before_timing(w)
            elif kind == "timed":
                self._after_timed()
            elif kind in ("result", "broken"):
                return ev


def _off_protocol(phase: str, exc: Exception) -> Event:
    """A worker that writes something the protocol does not know is broken: the job ends as the
    server's fault (UNAVAILABLE_WORKER_CRASHED at its phase), and the worker is killed."""
    log.warning("GPU worker broke the protocol while %s: %s", phase, str(exc)[:300])
    return {"ev": "broken", "stage": phase, "error": str(exc)[:300]}


class HookRelay:
    """Calls ``hook`` with each event, in order, on a thread of its own. The watch loop hands an event
    over and goes on: a "timing" phase shown on a learner's page is a database write that, with several
    workers sharing a database, waits for its lock; done in the watch loop it sat between the job's
    checking and its first timed round (the worker's "checked" waited behind it). A hook that raises is
    logged and not called again for this job (the grade goes on: progress never changes a verdict)."""

    def __init__(self, hook: Callable[[Event], None]) -> None:
        self.hook = hook
        self._events: queue.SimpleQueue[Event | None] = queue.SimpleQueue()
        self._failed = False
        self._thread = threading.Thread(target=self._deliver, name="gpu-phase-hook", daemon=True)
        self._thread.start()

    def __call__(self, ev: Event) -> None:
        self._events.put(ev)

    def _deliver(self) -> None:
        while (ev := self._events.get()) is not None:
            if not self._failed:
                try:
                    self.hook(ev)
                except Exception:
                    self._failed = True
                    log.exception("the phase hook failed; the job goes on without it")

    def close(self) -> None:
        """Wait until every event was delivered."""
        self._events.put(None)
        self._thread.join()


_runner: ProcessWide[GpuRunner] = ProcessWide(GpuRunner)


def get_runner() -> GpuRunner:
    return _runner.get()


def run_job(exercise: Exercise, compiled: CompiledKernel, launch_plan: LaunchPlan | dict[str, Any],
            on_phase: Callable[[str], object] | None = None, *, seed: int | None = None,
            do_timing: bool = True, runner: GpuRunner | None = None,
            timing_sizes: list[Mapping[str, int]] | None = None) -> Result:
    """Check (and time) one compiled kernel on the GPU in a fresh sandboxed worker."""
    runner = runner or get_runner()
    if not unsafe_unsandboxed_allowed(sandbox.UNSAFE_ENV):
        try:
            sandbox.bwrap_binary()
        except sandbox.SandboxUnavailable as exc:
            return Result(verdict=Verdict.UNAVAILABLE, exercise=exercise.id,
                          message=Message(codes.UNAVAILABLE_NO_SANDBOX, {"reason": str(exc)}))
    job = build_job(exercise, compiled, launch_plan, seed=seed, do_timing=do_timing,
                    limits=runner.limits, timing_sizes=timing_sizes)
    if on_phase is not None:
        on_phase(Phase.CHECKING.value)

    def on_event(ev: Event) -> None:
        if on_phase is not None and ev.get("name") == "timing":
            on_phase(Phase.TIMING.value)

    final, worker = runner.run(job, on_event)
    result = to_result(final, worker, exercise.id)
    result.versions["gpu_cold_start"] = str(bool(final.get("cold_start")))
    result.versions.update(profile_entries(final.get("runner_profile") or {}))
    return result


# The job's stages inside its worker (worker.py), as ``gpu_stage_<name>_ms`` entries: set-up, checking,
# the wait for its inputs and at the gate, the timed rounds, the re-checks settled at the end.
WORKER_STAGES = ("setup", "checking", "inputs_wait", "gate", "settle", "timing")


def profile_entries(profile: Mapping[str, Any]) -> dict[str, str]:
    """Where a job's time went, as ``versions`` entries (strings, like ``gpu_cold_start``): the wait
    for the GPU lock and for a warmed worker, the job on the GPU worker, the reaping, and the start-up
    of the worker it ran on (its imports, and its context and cuBLAS handle). The benchmarks read them
    from stored results to say where the time of a job went when several GPUs share one host's CPUs."""
    startup = profile.get("startup") or {}
    ms = {"gpu_wait_lock_ms": profile.get("wait_lock_ms"), "gpu_wait_spare_ms": profile.get("wait_spare_ms"),
          "gpu_job_ms": profile.get("job_ms"), "gpu_reap_ms": profile.get("reap_ms"),
          "gpu_worker_imports_ms": startup.get("imports_ms"), "gpu_worker_warm_ms": startup.get("warm_ms")}
    stages = profile.get("worker") or {}
    ms.update({f"gpu_stage_{name}_ms": stages.get(f"{name}_ms") for name in WORKER_STAGES})
    return {key: f"{float(value):.1f}" for key, value in ms.items() if isinstance(value, (int, float))}
