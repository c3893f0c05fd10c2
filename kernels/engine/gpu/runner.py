"""Parent side of GPU grading: ``run_job(exercise, compiled, launch_plan, on_phase) -> Result``.

One job = one fresh worker process (spawned with exec, never forked after CUDA init), sandboxed
by bubblewrap (sandbox.py), which exits after the job. To keep its start-up (import CuPy, create
the context, cuBLAS handle: about a second) off the learner's clock, the next job's worker is
started as soon as the current job is handed over: it imports on CPU while the GPU works, and
creates its CUDA context only after the job, while holding the GPU lock, so it never warms while
another job is being timed. Only one job uses the GPU at a time: an flock on a lock file, shared by every
process on this machine (several web workers, the benchmark commands).

Deadlines: the worker announces each learner launch ("watch" with a limit); the parent kills
the whole process group when a watch or the job's own deadline expires: TIME_LIMIT.
The learner's device printf goes to the worker's stdout, read here and capped.
"""

from __future__ import annotations

import base64
import fcntl
import json
import logging
import os
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from .. import codes
from ..compiler.nvrtc_compile import compile_program, nvrtc_options
from ..process_wide import ProcessWide
from ..result import Message, Phase, Result, Verdict
from ..sandboxing import kill_process_group, start_in_own_session, unsafe_unsandboxed_allowed, wait_readable
from ..settings import engine_settings
from . import sandbox

if TYPE_CHECKING:
    from ..compiler import CompiledKernel
    from ..exercise import Exercise
    from ..launch import LaunchPlan

log = logging.getLogger(__name__)

# One line of the worker's protocol ({"ev": "phase" | "watch" | "result" | ...}) and one job sent
# to it: JSON objects whose keys the worker and this module agree on (gpu/protocol.py).
Event = dict[str, Any]
Job = dict[str, Any]

OUTPUT_CAP = 16 * 1024  # bytes of learner device output kept


@dataclass
class Limits:
    launch_s: float = 5.0  # one learner launch (correctness)
    job_s: float = 120.0  # the whole job, start-up excluded
    start_s: float = 60.0  # a worker's start-up (import CuPy, context, cuBLAS)
    timing_s: float = 0.5  # timing budget per job (split over the timing sizes; stops earlier
    # once every median's relative standard error is under timing_rse)
    timing_rse: float = field(default_factory=lambda: engine_settings().timing_rse)
    printf_bytes: int = 64 * 1024  # device printf FIFO
    heap_bytes: int = 1 << 20  # device malloc heap (the default 8 MiB is not needed)

    def worker_opts(self) -> dict[str, int]:
        return {"printf_bytes": self.printf_bytes, "heap_bytes": self.heap_bytes}


def lock_path() -> str:
    """One lock per GPU: workers bound to different devices (CUDA_VISIBLE_DEVICES) never wait on each other."""
    device = sandbox.visible_devices()
    suffix = f"-dev{device.replace(',', '_')}" if device else ""
    return engine_settings().gpu_lock or f"/tmp/kernels-gpu-{os.getuid()}{suffix}.lock"


class GpuLock:
    """Exclusive use of the GPU across processes (flock is released if the holder dies)."""

    def __init__(self, path: str | None = None):
        self.path = path or lock_path()
        self._fh: IO[str] | None = None
        self._thread_lock = threading.Lock()  # flock is per open file, so serialise threads too

    def __enter__(self) -> GpuLock:
        self._thread_lock.acquire()
        self._fh = fh = open(self.path, "a+")
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._fh is not None:
                fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
                self._fh.close()
        finally:
            self._fh = None
            self._thread_lock.release()


# ---- one worker process -------------------------------------------------------------------

class Worker:
    """``deferred``: the process starts and imports (CPU only) at once, but touches the GPU only
    when ``wait_ready`` sends it "warm": so the next worker can load while a job is being timed."""

    def __init__(self, limits: Limits, deferred: bool = False):
        sandboxed = not unsafe_unsandboxed_allowed(sandbox.UNSAFE_ENV)
        r, w = os.pipe()
        cmd = sandbox.worker_command({**limits.worker_opts(), "deferred": deferred}, w, sandboxed=sandboxed)
        env = None if sandboxed else sandbox.worker_env(sandboxed=False)
        self.sandboxed = sandboxed
        self.proc = start_in_own_session(cmd, stderr=subprocess.PIPE, pass_fds=(w,), env=env)
        os.close(w)
        self.proto_fd = r
        self._buf = b""
        self.ready: Event | None = None
        self.warm_sent = not deferred
        self.output = bytearray()
        self.output_total = 0
        self.stderr = bytearray()
        self._readers = [threading.Thread(target=self._drain, args=(self.proc.stdout, True), daemon=True),
                         threading.Thread(target=self._drain, args=(self.proc.stderr, False), daemon=True)]
        for t in self._readers:
            t.start()
        self.started = time.monotonic()

    def _drain(self, stream: IO[bytes], is_output: bool) -> None:
        while True:
            chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not chunk:
                return
            if is_output:
                self.output_total += len(chunk)
                room = OUTPUT_CAP - len(self.output)
                if room > 0:
                    self.output += chunk[:room]
            elif len(self.stderr) < 16384:
                self.stderr += chunk[:16384 - len(self.stderr)]

    def next_event(self, timeout: float) -> Event | None:
        """The next protocol message, None on timeout; raises EOFError when the worker is gone."""
        deadline = time.monotonic() + max(0.0, timeout)
        while b"\n" not in self._buf:
            if not wait_readable(self.proto_fd, deadline):
                return None
            chunk = os.read(self.proto_fd, 65536)
            if not chunk:
                raise EOFError
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        ev: Event = json.loads(line)  # the worker writes one JSON object per line
        return ev

    def wait_ready(self, timeout: float) -> Event:
        """Until the worker holds its CUDA context (a deferred one is told to create it now)."""
        if self.ready is not None:
            return self.ready
        deadline = time.monotonic() + timeout
        if not self.warm_sent:
            self._send(b"warm\n")
            self.warm_sent = True
        while True:
            ev = self.next_event(deadline - time.monotonic())
            if ev is None:
                raise TimeoutError("worker start-up")
            if ev.get("ev") == "loaded":  # a deferred worker's imports are done; "warm" is on its way
                continue
            if ev.get("ev") != "ready":
                raise RuntimeError(f"worker did not start: {ev}")
            self.ready = ev
            return ev

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send_job(self, job: Job) -> None:
        self._send((json.dumps(job) + "\n").encode())

    def _send(self, line: bytes) -> None:
        stdin = self.proc.stdin
        assert stdin is not None  # started with a pipe on stdin (start_in_own_session)
        stdin.write(line)
        stdin.flush()

    def kill(self) -> None:
        kill_process_group(self.proc.pid)
        self.close()

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        for t in self._readers:
            t.join(timeout=2)
        try:
            os.close(self.proto_fd)
        except OSError:
            pass

    def learner_output(self) -> tuple[str, int]:
        return self.output.decode("utf-8", errors="replace"), self.output_total


# Every worker is started from ONE long-lived thread. bwrap's --die-with-parent uses
# PR_SET_PDEATHSIG, which fires when the *thread* that started the process exits: a worker
# started from a short-lived thread (the spare's warm-up thread, a web server's request thread)
# would be killed with SIGKILL as soon as that thread ends.
_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def new_worker(limits: Limits, deferred: bool = False) -> Worker:
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpu-worker-spawner")
        fut = _spawner.submit(Worker, limits, deferred)
    return fut.result()


# ---- the pool: one spare, warmed under the GPU lock --------------------------------------

class GpuRunner:
    def __init__(self, limits: Limits | None = None, *, keep_spare: bool | None = None):
        self.limits = limits or Limits()
        self.lock = GpuLock()
        self.keep_spare = engine_settings().gpu_spare if keep_spare is None else keep_spare
        self._spare: Worker | None = None
        self._spare_mutex = threading.Lock()
        self._warming: threading.Thread | None = None

    # The spare's process starts (imports, on CPU) while the current job runs (``_preload``); its
    # CUDA context is created with the GPU lock held, so it never warms up while a job is timed.
    def _warm_spare(self) -> None:
        try:
            with self.lock:
                with self._spare_mutex:
                    w, self._spare = self._spare, None
                if w is None or not w.alive():
                    if w is not None:
                        w.kill()
                    w = new_worker(self.limits)
                try:
                    w.wait_ready(self.limits.start_s)
                except Exception:
                    log.warning("spare GPU worker failed to start: %s", bytes(w.stderr[-2000:]))
                    w.kill()
                    return
            with self._spare_mutex:
                old, self._spare = self._spare, w
            if old is not None:
                old.kill()
        except Exception:
            log.exception("warming a spare GPU worker failed")

    def _preload(self) -> None:
        """Start the next job's worker now, without touching the GPU (it imports while we time)."""
        if not self.keep_spare:
            return
        with self._spare_mutex:
            if self._spare is not None:
                return
        try:
            w = new_worker(self.limits, deferred=True)
        except Exception:
            log.exception("preloading the next GPU worker failed")
            return
        with self._spare_mutex:
            old, self._spare = self._spare, w
        if old is not None:
            old.kill()

    def warm_in_background(self) -> None:
        if not self.keep_spare:
            return
        with self._spare_mutex:
            if self._spare is not None and self._spare.alive() and self._spare.ready is not None:
                return
            if self._warming is not None and self._warming.is_alive():
                return
            self._warming = threading.Thread(target=self._warm_spare, daemon=True)
            self._warming.start()

    def _take_spare(self) -> Worker | None:
        """The spare, warmed (call with the GPU lock held); None when there is none that works."""
        with self._spare_mutex:
            w, self._spare = self._spare, None
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
        w = self._take_spare()
        if w is not None:
            w.kill()

    def run(self, job: Job, on_event: Callable[[Event], None]) -> tuple[Event, Worker]:
        """Run one job; returns (final event, worker). Holds the GPU lock throughout."""
        if self._warming is not None and self._warming.is_alive():
            self._warming.join(timeout=self.limits.start_s)
        with self.lock:
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
            for attempt in range(2):
                try:
                    w.send_job(job)
                    if attempt == 0:
                        self._preload()
                    final = self._watch(w, on_event)
                except (BrokenPipeError, OSError) as exc:
                    final = {"ev": "crashed", "returncode": None, "phase": "start", "started": False,
                             "stderr": str(exc)}
                finally:
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
        self.warm_in_background()
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
            if ev is None:
                limit = (self.limits.job_s if watch_deadline is None or job_deadline <= watch_deadline
                         else watch_limit)
                w.kill()
                return {"ev": "timeout", "seconds": limit, "phase": phase, "what": watch_what}
            kind = ev.get("ev")
            if kind == "watch":
                watch_limit = float(ev.get("limit", self.limits.launch_s))
                watch_deadline = time.monotonic() + watch_limit
                watch_what = ev.get("what")
            elif kind == "unwatch":
                watch_deadline = None
            elif kind == "phase":
                started = True
                phase = ev.get("name", phase)
                on_event(ev)
            elif kind in ("result", "broken"):
                return ev


_runner: ProcessWide[GpuRunner] = ProcessWide(GpuRunner)


def get_runner() -> GpuRunner:
    return _runner.get()


# ---- reference kernels (trusted files) are compiled here, without a sandbox ---------------

_ref_cache: dict[tuple[str, int, int, str], tuple[bytes, str]] = {}
_ref_lock = threading.Lock()


def compile_trusted(path: str, kernel_name: str, arch: str) -> bytes:
    """NVRTC compile of one of OUR .cu files (naive.cu, tiled.cu), cached per file version."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size, arch)
    with _ref_lock:
        hit = _ref_cache.get(key)
        if hit is not None:
            return hit[0]
    with open(path, encoding="utf-8") as fh:
        src = fh.read()
    # the engine's one NVRTC call; no -Xptxas=-v: only the cubin is used here
    out = compile_program(src, os.path.basename(path), nvrtc_options(arch, ptxas_verbose=False))
    if not out.ok:
        detail = out.log if out.error_kind == "compile" else (out.error or "")
        raise RuntimeError(f"reference {path} does not compile: {detail[:2000]}")
    cubin = out.cubin
    with _ref_lock:
        _ref_cache[key] = (cubin, kernel_name)
    return cubin


def _plan_dict(plan: LaunchPlan | dict[str, Any]) -> dict[str, Any]:
    if isinstance(plan, dict):
        return {"block": list(plan["block"]), "tile": list(plan["tile"]), "smem": int(plan.get("smem", 0))}
    return {"block": list(plan.block), "tile": list(plan.tile), "smem": int(plan.smem)}


def exercise_payload(exercise: Exercise) -> dict[str, Any]:
    """What the worker needs of the spec, as plain JSON (the worker does not read YAML)."""
    return {
        "id": exercise.id,
        "folder": str(exercise.folder.resolve()),
        "params": [{"name": p.name, "type": p.type, "role": p.role, "shape": list(p.shape or ())}
                   for p in exercise.kernel.params],
        "output_grid": {"rows": exercise.output_grid.rows, "cols": exercise.output_grid.cols},
        "correctness_sizes": [dict(s) for s in exercise.correctness_sizes],
        "timing_sizes": [dict(s) for s in exercise.timing_sizes],
        "tolerance": dict(exercise.tolerance),
        "work": {"metric": exercise.work.metric, "expr": exercise.work.expr},
        "baseline": exercise.baseline,
        "tiers": [{"id": t.id, "against": t.against, "speedup": t.speedup, "xp": t.xp}
                  for t in exercise.tiers],
        "pass_xp": exercise.pass_xp,
    }


def build_job(exercise: Exercise, compiled: CompiledKernel, plan: LaunchPlan | dict[str, Any], *,
              seed: int | None = None, do_timing: bool = True, limits: Limits | None = None,
              timing_sizes: list[Mapping[str, int]] | None = None) -> Job:
    limits = limits or get_runner().limits
    arch = getattr(compiled, "arch", None) or "sm_90"
    payload = exercise_payload(exercise)
    if timing_sizes is not None:
        payload["timing_sizes"] = [dict(s) for s in timing_sizes]
    refs = {}
    for name in ("naive", "tiled"):
        rk = exercise.references[name]
        cubin = compile_trusted(str(exercise.path(rk.file)), exercise.kernel.name, arch)
        refs[name] = {"cubin_b64": base64.b64encode(cubin).decode(), "name": exercise.kernel.name,
                      "launch": rk.launch.as_request()}
    return {
        "exercise": payload,
        "learner": {"cubin_b64": base64.b64encode(compiled.cubin).decode(),
                    "name": compiled.kernel_name, "launch": _plan_dict(plan)},
        "references": refs,
        "seed": seed if seed is not None else secrets.randbits(63),
        "limits": {"launch_s": limits.launch_s, "timing_s": limits.timing_s, "timing_rse": limits.timing_rse},
        "work_amounts": [exercise.work.amount(s) for s in payload["timing_sizes"]],
        "do_timing": do_timing,
    }


# ---- Result assembly ----------------------------------------------------------------------

def _to_result(final: Event, worker: Worker, exercise_id: str) -> Result:
    kind = final.get("ev")
    flags: list[Message] = []
    text, total = worker.learner_output()  # what the learner's printf wrote to the worker's stdout pipe
    if total:
        flags.append(Message("DEVICE_OUTPUT", {"text": text[:4096], "bytes": total,
                                               "truncated": total > len(text[:4096])}))
    if kind == "timeout":
        return Result(verdict=Verdict.TIME_LIMIT, exercise=exercise_id, flags=flags,
                      message=Message(codes.TIME_LIMIT_EXCEEDED,
                                      {"seconds": round(float(final["seconds"]), 3),
                                       "phase": final.get("phase")}))
    if kind == "crashed":
        log.warning("GPU worker crashed (rc=%s): %s", final.get("returncode"), final.get("stderr"))
        return Result(verdict=Verdict.UNAVAILABLE, exercise=exercise_id, flags=flags,
                      message=Message(codes.UNAVAILABLE_WORKER_CRASHED, {"stage": final.get("phase")}))
    if kind == "broken":
        log.warning("GPU worker unusable: %s %s", final.get("error"), final.get("stderr"))
        return Result(verdict=Verdict.UNAVAILABLE, exercise=exercise_id, flags=flags,
                      message=Message(codes.UNAVAILABLE_WORKER_CRASHED, {"stage": final.get("stage", "start")}))
    # the worker sends Result.to_dict(): one Result path, read back by the same code that wrote it
    try:
        res = Result.from_dict(final["result"])
    except (KeyError, TypeError, ValueError):  # not a Result: treat the worker as broken, say so
        log.warning("GPU worker sent a malformed result: %.500r", final.get("result"))
        return Result(verdict=Verdict.UNAVAILABLE, exercise=exercise_id, flags=flags,
                      message=Message(codes.UNAVAILABLE_WORKER_CRASHED, {"stage": "result"}))
    res.exercise = exercise_id
    res.flags = flags + res.flags
    res.versions = {k: str(v) for k, v in res.versions.items()}
    res.versions["gpu_worker"] = "sandboxed" if worker.sandboxed else "UNSANDBOXED"
    return res


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
    result = _to_result(final, worker, exercise.id)
    result.versions["gpu_cold_start"] = str(bool(final.get("cold_start")))
    return result
