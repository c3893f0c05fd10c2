"""The parent side of ONE GPU worker process (the child side, which runs inside the sandbox, is
worker.py): start it in bubblewrap (sandbox.py) in its own session, read its protocol events
(protocol.py) with deadlines, send it a job, capture and cap the learner's device printf from its
stdout, kill its process group.

A worker can be started ``deferred``: it imports (CPU only) at once, creates its CUDA context
only when told to ("warm", no launch), and makes its first launches when told to ("prime") or when
its job comes: so the next job's worker loads and starts while the current job is being timed.
Every worker is started from one long-lived thread (``new_worker``; see the note there).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

from ..sandboxing import kill_process_group, start_in_own_session, unsafe_unsandboxed_allowed, wait_readable
from ..settings import engine_settings
from . import sandbox

# One line of the worker's protocol ({"ev": "phase" | "watch" | "result" | ...}) and one job sent
# to it: JSON objects whose keys the worker and this module agree on (gpu/protocol.py).
Event = dict[str, Any]
Job = dict[str, Any]

OUTPUT_CAP = 16 * 1024  # bytes of learner device output kept


@dataclass
class Limits:
    launch_s: float = 5.0  # one learner launch (correctness)
    # The whole job, start-up excluded: its GPU-time budget (checking and timing). The worker stops
    # timing before it (budget.py); the parent kills it at it (TIME_LIMIT).
    job_s: float = field(default_factory=lambda: engine_settings().gpu_job_budget_s)
    start_s: float = 60.0  # a worker's start-up (import CuPy, context, cuBLAS)
    timing_s: float = 0.5  # timing budget per job (split over the timing sizes; stops earlier
    # once every median's relative standard error is under timing_rse)
    timing_rse: float = field(default_factory=lambda: engine_settings().timing_rse)
    # Timing stops when the learner's kernel is this many times slower than the naive one.
    too_slow_ratio: float = field(default_factory=lambda: engine_settings().too_slow_ratio)
    printf_bytes: int = 64 * 1024  # device printf FIFO
    heap_bytes: int = 1 << 20  # device malloc heap (the default 8 MiB is not needed)
    # device memory the worker takes in one allocation while it warms up, for the job's blocks
    # (arena.py says why)
    arena_bytes: int = 1 << 30

    def worker_opts(self) -> dict[str, int]:
        return {"printf_bytes": self.printf_bytes, "heap_bytes": self.heap_bytes, "arena_bytes": self.arena_bytes}


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
        self._closed = False
        self._close_lock = threading.Lock()
        self._buf = b""
        self.ready: Event | None = None
        self.warm_sent = not deferred
        self.prime_sent = False
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
        """The next protocol message, None on timeout; raises EOFError when the worker is gone and
        ValueError when the line is not a JSON object."""
        deadline = time.monotonic() + max(0.0, timeout)
        if self._closed and b"\n" not in self._buf:
            raise EOFError  # its descriptor is closed (the number may belong to another file now)
        while b"\n" not in self._buf:
            if not wait_readable(self.proto_fd, deadline):
                return None
            chunk = os.read(self.proto_fd, 65536)
            if not chunk:
                raise EOFError
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        ev = json.loads(line)  # the worker writes one JSON object per line; ValueError if not JSON
        if not isinstance(ev, dict):
            raise ValueError(f"a protocol event is a JSON object, not {type(ev).__name__}")
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

    def start_warming(self) -> None:
        """Tell a deferred worker to create its CUDA context now, without waiting for it
        (``wait_ready`` collects its answer later)."""
        if not self.warm_sent:
            self._send(b"warm\n")
            self.warm_sent = True

    def prime(self) -> None:
        """Tell the worker to make its first launches now (it warms first if it was not told to);
        the job sent later waits in the pipe behind this line."""
        self.start_warming()
        if not self.prime_sent:
            self._send(b"prime\n")
            self.prime_sent = True

    def release_timing(self) -> None:
        """Answer the worker's "checked": it may start its timed rounds."""
        self._send(b"time\n")

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
        if self._closed:
            return  # reaped already: its pid (and process group) may belong to another process now
        kill_process_group(self.proc.pid)
        self.close()

    def close(self) -> None:
        """Wait for the process and release its pipes. Once only: a second ``os.close`` of the
        protocol descriptor would close whatever file got that number since (the GPU lock's, say)."""
        with self._close_lock:  # the job's thread and the spare-warming thread may both close one
            if self._closed:
                return
            self._closed = True
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
