"""The parent side of the compile worker: start it, send jobs, enforce the wall deadline,
recycle it every N jobs and after any failure.

One job at a time per worker (a lock); a compile takes a fraction of a second, and the GPU is
the real bottleneck, so one worker per server process is enough.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any

from ..sandboxing import kill_process_group, start_in_own_session, unsafe_unsandboxed_allowed, wait_readable
from ..settings import engine_settings
from .sandbox import UNSAFE_ENV, SandboxUnavailable, Toolchain, find_toolchain, worker_argv

MAX_FRAME = 64 << 20  # a cubin of a 64 KiB source is far below this


class WorkerTimeout(Exception):
    pass


class WorkerDied(Exception):
    def __init__(self, signal_number: int | None, detail: str = ""):
        self.signal_number = signal_number
        super().__init__(f"worker died (signal {signal_number}) {detail}".strip())


@dataclass
class RawCompile:
    """What the worker answered, before any rewriting."""

    ok: bool
    log: str
    lowered: dict[str, str]
    cubin: bytes
    ptx: str
    error: str | None = None
    error_kind: str | None = None  # compile | memory | internal


@dataclass
class WorkerSettings:
    # per compile, enforced here by killing the process group (twice the CPU limit plus two seconds)
    wall_s: float = field(default_factory=lambda: 2.0 * engine_settings().compile_cpu_s + 2.0)
    # per compile, enforced in the worker by RLIMIT_CPU (MKC_COMPILE_CPU_S)
    cpu_s: float = field(default_factory=lambda: engine_settings().compile_cpu_s)
    data_bytes: int = 4 << 30  # RLIMIT_DATA (heap); NVRTC on a big kernel stays well below
    max_jobs: int = 100  # recycle after this many compiles (bounds any slow leak in NVRTC)
    startup_s: float = 30.0
    sandboxed: bool | None = None  # None: sandboxed unless the loud unsafe setting is on


class CompileWorker:
    def __init__(self, settings: WorkerSettings | None = None, toolchain: Toolchain | None = None):
        self.settings = settings or WorkerSettings()
        self._toolchain = toolchain
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._jobs = 0
        self._lock = threading.Lock()
        self.nvrtc_version: tuple[int, ...] | None = None  # (13, 0) once started
        self.starts = 0  # how many processes were started (tests watch recycling)
        self.hello: dict[str, Any] = {}

    @property
    def sandboxed(self) -> bool:
        if self.settings.sandboxed is not None:
            return self.settings.sandboxed
        return not unsafe_unsandboxed_allowed(UNSAFE_ENV)

    @property
    def toolchain(self) -> Toolchain:
        if self._toolchain is None:
            self._toolchain = find_toolchain()
        return self._toolchain

    # ---- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Start a fresh process and wait for its hello; SandboxUnavailable when it cannot."""
        self.stop()
        argv = worker_argv(self.toolchain, sandboxed=self.sandboxed, cpu_s=self.settings.cpu_s,
                           data_bytes=self.settings.data_bytes)
        self._stderr = tempfile.TemporaryFile()
        env = {} if self.sandboxed else {"PATH": "/usr/bin:/bin"}
        try:
            self._proc = start_in_own_session(argv, stderr=self._stderr, env=env, cwd="/")
        except OSError as exc:
            raise SandboxUnavailable("WORKER_START_FAILED", str(exc)[:200]) from exc
        self.starts += 1
        self._jobs = 0
        try:
            hello = json.loads(self._read_frame(time.monotonic() + self.settings.startup_s))
        except (WorkerTimeout, WorkerDied, ValueError) as exc:
            detail = self._stderr_tail()
            self.stop()
            reason = "BWRAP_FAILED" if self.sandboxed else "WORKER_START_FAILED"
            raise SandboxUnavailable(reason, f"{exc}; {detail}") from None
        if not hello.get("ready"):
            self.stop()
            raise SandboxUnavailable("NVRTC_MISSING", f"{hello.get('error')}: {hello.get('detail')}")
        self.nvrtc_version = tuple(int(v) for v in hello.get("nvrtc_version") or ())
        self.hello = hello  # limits, environment variable names, pid: what tests check

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            _kill_group(proc)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def ensure_started(self) -> None:
        if not self.alive() or self._jobs >= self.settings.max_jobs:
            self.start()

    # ---- one compile -----------------------------------------------------------------

    def limits(self, cpu_s: float | None = None) -> tuple[float, float]:
        """(CPU seconds, wall seconds) of one compile: a job may ask for less CPU than configured (a first
        slice), never more; the wall deadline is always the configured one. The CPU limit is what ends a
        bomb's slice; a shorter wall deadline would also end an honest compile that an overloaded host
        starved of CPU, and send it to wait behind the bombs as a long compile."""
        cpu = self.settings.cpu_s if cpu_s is None else min(cpu_s, self.settings.cpu_s)
        return cpu, self.settings.wall_s

    def compile(self, source: str, name: str, options: list[str],
                name_expressions: list[str], cpu_s: float | None = None) -> RawCompile:
        """Raises WorkerTimeout / WorkerDied (the worker is then already gone) or
        SandboxUnavailable (could not start one). ``cpu_s``: this job's CPU limit (never above the
        configured one; None: the configured one)."""
        cpu, wall = self.limits(cpu_s)
        with self._lock:
            self.ensure_started()
            self._jobs += 1
            job = json.dumps({"source": source, "name": name, "options": options,
                              "name_expressions": name_expressions, "cpu_s": cpu}).encode("utf-8")
            deadline = time.monotonic() + wall
            try:
                self._write_frame(job)
                header = json.loads(self._read_frame(deadline))
                cubin = self._read_frame(deadline)
                ptx = self._read_frame(deadline)
            except BaseException:
                self.stop()  # recycle after any failure, whatever it was
                raise
            if not header.get("ok") and header.get("error_kind") in ("memory", "internal"):
                self.stop()  # NVRTC itself failed: do not trust this process again
            return RawCompile(ok=bool(header.get("ok")), log=header.get("log") or "",
                              lowered=header.get("lowered") or {}, cubin=cubin,
                              ptx=ptx.decode("utf-8", "replace"), error=header.get("error"),
                              error_kind=header.get("error_kind"))

    # ---- framing ---------------------------------------------------------------------

    def _write_frame(self, payload: bytes) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(struct.pack(">I", len(payload)) + payload)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None

    def _read_frame(self, deadline: float) -> bytes:
        head = self._read_exact(4, deadline)
        (n,) = struct.unpack(">I", head)
        if n > MAX_FRAME:
            raise WorkerDied(None, "frame too large")
        return self._read_exact(n, deadline)

    def _read_exact(self, n: int, deadline: float) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        chunks: list[bytes] = []
        got = 0
        while got < n:
            if not wait_readable(fd, deadline):
                raise WorkerTimeout()
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                raise self._died()
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _died(self) -> WorkerDied:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                code = None
        # bwrap reports its child's death by signal as exit status 128 + signal
        sig = None
        if code is not None:
            sig = -code if code < 0 else (code - 128 if code > 128 else None)
        return WorkerDied(sig, self._stderr_tail())

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            return self._stderr.read()[-400:].decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the worker's whole process group (bwrap and everything under it)."""
    kill_process_group(proc.pid)
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
