"""Compile one (already policy-checked) source into a CompiledKernel, or a coded CompileError.

Steps: prelude (allowed headers + ``#line 1 "kernel.cu"``) + source + signature check ->
cache lookup -> sandboxed worker -> learner-safe log, resources, extern "C" check -> cache.

This module does NOT run the source policy: grade() does that first. Keeping them apart lets a
test switch the policy off and prove the sandbox alone keeps files out of reach.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .. import codes
from ..exercise import KernelSpec
from ..headers import SOURCE_NAME, prelude
from ..process_wide import ProcessWide
from ..result import Verdict
from ..settings import engine_settings
from . import nvrtc_compile
from .cache import CubinCache, cache_key
from .logs import learner_log, parse_ptxas_resources
from .sandbox import SandboxUnavailable, available_headers, find_toolchain
from .signature import check_code, check_lowered_name, classify_check_errors, name_expression
from .worker_client import CompileWorker, RawCompile, WorkerDied, WorkerTimeout

logger = logging.getLogger(__name__)
_ARCH_RE = re.compile(r"^sm_\d{2,3}[a-z]?$")
_ENTRY_RE = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(")


@dataclass
class CompiledKernel:
    """What the GPU side loads (contract C), plus a few facts for the Result."""

    cubin: bytes
    ptx: str
    kernel_name: str  # the symbol to look up in the cubin
    arch: str
    resources: dict[str, int]  # registers, shared_bytes, local_bytes (+ spill_*, constant_bytes)
    log: str  # learner-safe: capped, no server paths, learner line numbers
    log_truncated: bool = False
    cached: bool = False
    key: str = ""
    nvrtc_version: str = ""
    sandboxed: bool = True
    compile_ms: float = 0.0


class CompileError(Exception):
    """The compile did not give a kernel. ``verdict`` is COMPILE_ERROR (the learner's source)
    or UNAVAILABLE (the server could not compile: no sandbox, no NVRTC)."""

    def __init__(self, verdict: Verdict, code: str, params: dict[str, Any] | None = None,
                 log: str = "", log_truncated: bool = False):
        self.verdict, self.code, self.params = verdict, code, dict(params or {})
        self.log, self.log_truncated = log, log_truncated
        super().__init__(f"{verdict.value} {code} {self.params}")


class Compiler:
    def __init__(self, arch: str | None = None, *, worker: CompileWorker | None = None,
                 cache: CubinCache | None = None, lineinfo: bool = False,
                 extra_options: Iterable[str] = ()):
        arch = arch or engine_settings().compile_arch
        if not _ARCH_RE.match(arch):
            raise ValueError(f"bad architecture {arch!r} (want e.g. sm_90)")
        self.arch = arch
        self.worker = worker or CompileWorker()
        self.cache = cache if cache is not None else CubinCache(disk_dir=engine_settings().cubin_cache_dir or None)
        self.lineinfo = lineinfo
        self.extra_options = list(extra_options)
        self._unavailable: tuple[float, SandboxUnavailable] | None = None

    # ---- public ----------------------------------------------------------------------

    def options(self, include_dirs: Iterable[str] = ()) -> list[str]:
        """The NVRTC options (nvrtc_compile.nvrtc_options); the cache key uses them without
        ``include_dirs`` (a server path), the worker gets them with."""
        return nvrtc_compile.nvrtc_options(self.arch, lineinfo=self.lineinfo, extra=self.extra_options,
                                           include_dirs=include_dirs)

    def compile(self, source: str, kernel: KernelSpec | None = None, *,
                headers: Iterable[str] = (), cpu_s: float | None = None) -> CompiledKernel:
        """Compile ``source`` (the learner's text). With ``kernel``, also check its signature
        and extern "C"; without, take the first entry in the PTX (e.g. ladder files).
        ``cpu_s``: a CPU limit below MKC_COMPILE_CPU_S for this compile (past it: COMPILE_TIMEOUT)."""
        headers = tuple(headers)
        text = prelude(headers) + source + (check_code(kernel) if kernel else "")
        names = [name_expression(kernel)] if kernel else []
        options = self.options()
        try:
            tc = find_toolchain()
        except SandboxUnavailable as exc:
            raise self._unavailable_error(exc) from None
        run_options = options
        if headers:
            if not set(headers) <= set(available_headers(tc)) or not tc.include_dir:
                raise CompileError(Verdict.UNAVAILABLE, codes.UNAVAILABLE_NVRTC, {"reason": "CUDA_HEADERS_MISSING"})
            run_options = self.options(include_dirs=[tc.include_dir])
        version = nvrtc_version()
        key = cache_key(text=text, options=options + (["+headers"] if headers else []),
                        nvrtc_version=version, arch=self.arch, name_expressions=names)
        hit = self.cache.get(key)
        if hit is not None:
            return self._from_cache(hit, key, version)

        started = time.perf_counter()
        raw = self._run_worker(text, run_options, names, cpu_s)
        ms = (time.perf_counter() - started) * 1000.0
        known_paths = [p for p in (tc.include_dir, tc.nvrtc_dir, tc.python_prefix) if p]
        log = learner_log(raw.log, known_paths)

        if not raw.ok:
            if raw.error_kind == "memory":
                raise CompileError(Verdict.COMPILE_ERROR, codes.COMPILE_RESOURCE_LIMIT, {"limit": "memory"})
            if raw.error_kind == "internal":
                raise CompileError(Verdict.UNAVAILABLE, codes.UNAVAILABLE_NVRTC, {"reason": "NVRTC_FAILED"})
            if "catastrophic error: out of memory" in raw.log:
                self.worker.stop()  # recycle: never reuse a process that ran out of memory
                raise CompileError(Verdict.COMPILE_ERROR, codes.COMPILE_RESOURCE_LIMIT,
                                   {"limit": "memory"}, log.text, log.truncated)
            if kernel is not None and log.check_errors and not (log.learner_errors or log.header_errors
                                                                or "ptxas" in log.text):
                code, params = classify_check_errors(kernel, log.check_errors)
            else:
                first = log.learner_errors[0].line if log.learner_errors else None
                code, params = codes.COMPILE_FAILED, {
                    "errors": len(log.learner_errors) + len(log.header_errors) or 1, "first_line": first}
            self.cache.put(key, {"ok": False, "code": code, "params": params, "log": log.text,
                                 "log_truncated": log.truncated}, b"")
            raise CompileError(Verdict.COMPILE_ERROR, code, params, log.text, log.truncated)

        if kernel is not None:
            bad = check_lowered_name(kernel, raw.lowered)
            if bad is not None:
                self.cache.put(key, {"ok": False, "code": bad[0], "params": bad[1], "log": log.text,
                                     "log_truncated": log.truncated}, b"")
                raise CompileError(Verdict.COMPILE_ERROR, bad[0], bad[1], log.text, log.truncated)
            kernel_name = kernel.name
        else:
            m = _ENTRY_RE.search(raw.ptx)
            if not m:
                raise CompileError(Verdict.COMPILE_ERROR, codes.COMPILE_KERNEL_MISSING,
                                   {"name": None, "expected": None}, log.text, log.truncated)
            kernel_name = m.group(1)

        resources = parse_ptxas_resources(raw.log, kernel_name) or {
            "registers": 0, "shared_bytes": 0, "local_bytes": 0}
        meta = {"ok": True, "ptx": raw.ptx, "kernel_name": kernel_name, "resources": resources,
                "log": log.text, "log_truncated": log.truncated, "compile_ms": ms}
        self.cache.put(key, meta, raw.cubin)
        return CompiledKernel(cubin=raw.cubin, ptx=raw.ptx, kernel_name=kernel_name, arch=self.arch,
                              resources=resources, log=log.text, log_truncated=log.truncated,
                              cached=False, key=key, nvrtc_version=version,
                              sandboxed=self.worker.sandboxed, compile_ms=ms)

    def available(self) -> tuple[bool, str | None]:
        """(True, None) when a worker can start here; else (False, reason code)."""
        try:
            find_toolchain()
            if not self.worker.alive():
                self.worker.start()
            return True, None
        except SandboxUnavailable as exc:
            return False, exc.reason

    def close(self) -> None:
        self.worker.stop()

    # ---- internals -------------------------------------------------------------------

    def _run_worker(self, text: str, options: list[str], names: list[str], cpu_s: float | None) -> RawCompile:
        # A sandbox that failed to start is not retried on every submission.
        if self._unavailable and time.monotonic() - self._unavailable[0] < 30:
            raise self._unavailable_error(self._unavailable[1])
        try:
            return self.worker.compile(text, SOURCE_NAME, options, names, cpu_s)
        except SandboxUnavailable as exc:
            # the detail (paths, bwrap's message) is for the operator's log, never the learner
            logger.warning("compile sandbox unavailable: %s", exc)
            self._unavailable = (time.monotonic(), exc)
            raise self._unavailable_error(exc) from None
        except WorkerTimeout:
            raise CompileError(Verdict.COMPILE_ERROR, codes.COMPILE_TIMEOUT,
                               {"seconds": self.worker.settings.wall_s}) from None
        except WorkerDied as exc:
            import signal as _signal

            if exc.signal_number in (_signal.SIGXCPU, _signal.SIGKILL):
                raise CompileError(Verdict.COMPILE_ERROR, codes.COMPILE_TIMEOUT,
                                   {"seconds": self.worker.limits(cpu_s)[0]}) from None
            if exc.signal_number in (_signal.SIGABRT, _signal.SIGSEGV, _signal.SIGBUS):
                # NVRTC aborts when malloc fails under RLIMIT_DATA
                raise CompileError(Verdict.COMPILE_ERROR, codes.COMPILE_RESOURCE_LIMIT,
                                   {"limit": "memory"}) from None
            raise CompileError(Verdict.UNAVAILABLE, codes.UNAVAILABLE_WORKER_CRASHED,
                               {"stage": "compile"}) from None

    def _unavailable_error(self, exc: SandboxUnavailable) -> CompileError:
        code = codes.UNAVAILABLE_NVRTC if exc.reason == "NVRTC_MISSING" else codes.UNAVAILABLE_NO_SANDBOX
        return CompileError(Verdict.UNAVAILABLE, code, {"reason": exc.reason})

    def _from_cache(self, hit: tuple[dict[str, Any], bytes], key: str, version: str) -> CompiledKernel:
        meta, cubin = hit
        if not meta.get("ok"):
            raise CompileError(Verdict.COMPILE_ERROR, meta["code"], meta.get("params") or {},
                               meta.get("log", ""), bool(meta.get("log_truncated")))
        return CompiledKernel(cubin=cubin, ptx=meta["ptx"], kernel_name=meta["kernel_name"],
                              arch=self.arch, resources=dict(meta["resources"]), log=meta["log"],
                              log_truncated=bool(meta.get("log_truncated")), cached=True, key=key,
                              nvrtc_version=version, sandboxed=self.worker.sandboxed,
                              compile_ms=float(meta.get("compile_ms") or 0.0))


_version_lock = threading.Lock()
_version: str | None = None


def nvrtc_version() -> str:
    """"13.0" — from the NVRTC library in this process (no GPU needed)."""
    global _version
    with _version_lock:
        if _version is None:
            try:
                major, minor = nvrtc_compile.nvrtc_version()
                _version = f"{major}.{minor}"
            except Exception:
                _version = "unknown"
        return _version


# Graded kernels carry line info: the insight's SASS/PTX by source line needs it, and -lineinfo
# changes no generated instruction (it adds a line table).
_default: ProcessWide[Compiler] = ProcessWide(lambda: Compiler(lineinfo=True))


def get_compiler() -> Compiler:
    """The process-wide compiler (one long-lived sandboxed worker)."""
    return _default.get()

