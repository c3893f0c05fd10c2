"""Disassemble a cubin with ``nvdisasm`` inside the compile sandbox's walls.

Where nvdisasm comes from (first found): ``$MKC_NVDISASM``, the ``nvidia-cuda-nvdisasm`` wheel
(``nvidia/cu13/bin/nvdisasm``), ``/usr/local/cuda/bin/nvdisasm``, ``$PATH``.

How it runs: under bubblewrap with the compile sandbox's settings (sandboxing.bwrap_args: every
namespace unshared, uid nobody, no capabilities, empty environment, no /proc, private /tmp), seeing
read-only only the system library folders and nvdisasm's own folder. The cubin is handed in as a
file made from an in-memory descriptor (``--ro-bind-data``): no learner text reaches the command
line, which is fixed. Limits: CPU seconds and data size (rlimits set in the child before exec),
a wall deadline (the process group is killed), and the output is capped (killed past the cap,
marked truncated).

Why not inside the compile worker: nvdisasm spends ~0.25 s of CPU initialising whatever the
cubin's size, and the compile worker answers one compile at a time. Run as its own sandboxed
process, grade() can overlap it with the GPU phases (about a second), so the learner waits no
longer for it.
"""

from __future__ import annotations

import importlib.util
import os
import resource
import shutil
import struct
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from .. import sandboxing
from ..settings import engine_settings

CUBIN_IN_SANDBOX = "/sandbox/kernel.cubin"
OUTPUT_CAP = 8 << 20  # bytes of disassembly read before the tool is stopped
DEADLINE_S = 15.0
CPU_S = 10
DATA_BYTES = 1 << 30
SYSTEM_DIRS = ("/usr/lib", "/usr/lib64", "/lib", "/lib64")
SYSTEM_FILES = ("/etc/ld.so.cache",)


@dataclass
class Disassembly:
    ok: bool
    text: str = ""
    truncated: bool = False
    reason: str | None = None  # NVDISASM_MISSING | NVDISASM_FAILED | NVDISASM_TIMEOUT | NO_SANDBOX
    tool: str | None = None  # "nvdisasm 13.2.86"
    ms: float = 0.0


def first_executable(candidates: Iterable[str | None]) -> str | None:
    """The real path of the first candidate that is an executable file (empty ones skipped)."""
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.realpath(c)
    return None


@lru_cache(maxsize=8)
def tool_version(path: str, name: str = "nvdisasm") -> str:
    """"nvdisasm 13.2.86" / "ncu 2025.3.1.0": the first version-looking token of ``--version``."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return name
    for token in out.replace(",", " ").split():
        token = token[1:] if token.startswith("V") else token
        if token[:1].isdigit() and token.count(".") >= 2:
            return f"{name} {token.split('(')[0]}"
    return name


@lru_cache(maxsize=1)
def find_nvdisasm() -> str | None:
    candidates = [engine_settings().nvdisasm]
    spec = importlib.util.find_spec("nvidia")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        for sub in sorted(os.listdir(loc)) if os.path.isdir(loc) else []:
            candidates.append(os.path.join(loc, sub, "bin", "nvdisasm"))
    return first_executable(candidates + ["/usr/local/cuda/bin/nvdisasm", shutil.which("nvdisasm") or ""])


def complete_elf(cubin: bytes) -> bytes:
    """The cubin padded to the length its own ELF header promises.

    CuPy's ``nvrtc.getCUBIN`` returns one byte less than ``nvrtcGetCUBINSize`` (it treats the
    buffer like a C string); the driver loads that fine, nvdisasm says "invalid ELF file". The
    missing tail is zero padding, so zeros restore it exactly.
    """
    if len(cubin) < 64 or cubin[:4] != b"\x7fELF" or cubin[4] != 2:  # ELF64 only (all cubins)
        return cubin
    phoff, shoff = struct.unpack_from("<QQ", cubin, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", cubin, 0x36)
    end: int = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
    if len(cubin) < end <= len(cubin) + 64:
        return cubin + b"\x00" * (end - len(cubin))
    return cubin


def sandbox_argv(tool: str, fd: int) -> list[str]:
    bwrap = _bwrap()
    options = sandboxing.bwrap_args(system_dirs=SYSTEM_DIRS, system_files=SYSTEM_FILES,
                                    read_only=[os.path.dirname(tool)], as_nobody=True,
                                    empty_dirs=("/sandbox",))
    options += ["--ro-bind-data", str(fd), CUBIN_IN_SANDBOX]
    return [bwrap, *options, "--", tool, *tool_args(CUBIN_IN_SANDBOX)]


def tool_args(cubin_path: str) -> list[str]:
    """-gi: line info with the inlining chain; -c: code only; -ndf: no dataflow pass (a third
    faster, and branch targets are labelled anyway)."""
    return ["-gi", "-c", "-ndf", cubin_path]


def _bwrap() -> str:
    from ..sandboxing import bwrap_binary

    return bwrap_binary()


def _limits() -> None:  # runs in the child between fork and exec
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_S, CPU_S))
    resource.setrlimit(resource.RLIMIT_DATA, (DATA_BYTES, DATA_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def disassemble(cubin: bytes, *, sandboxed: bool = True, deadline_s: float = DEADLINE_S,
                cap: int = OUTPUT_CAP) -> Disassembly:
    """nvdisasm's text for ``cubin``; never raises for a tool problem (the Disassembly says why)."""
    started = time.perf_counter()
    tool = find_nvdisasm()
    if tool is None:
        return Disassembly(False, reason="NVDISASM_MISSING")
    data = complete_elf(cubin)
    fd = os.memfd_create("cubin", 0)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
        if sandboxed:
            try:
                argv = sandbox_argv(tool, fd)
            except Exception:  # SandboxUnavailable: no bubblewrap here
                os.close(fd)
                return Disassembly(False, reason="NO_SANDBOX", tool=tool_version(tool))
        else:
            argv = [tool, *tool_args(f"/proc/self/fd/{fd}")]
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True,
                                pass_fds=(fd,), preexec_fn=_limits, env={})
    except OSError:
        os.close(fd)
        return Disassembly(False, reason="NVDISASM_FAILED", tool=tool_version(tool))
    os.close(fd)
    chunks: list[bytes] = []
    size = 0
    truncated = timed_out = False
    deadline = time.monotonic() + deadline_s
    stdout = proc.stdout
    assert stdout is not None  # started with a pipe on stdout
    try:
        out_fd = stdout.fileno()
        while True:
            if not sandboxing.wait_readable(out_fd, deadline):
                timed_out = True
                break
            chunk = os.read(out_fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                truncated = True
                break
    finally:
        if timed_out or truncated:
            sandboxing.kill_process_group(proc.pid)
        stdout.close()
        try:
            rc = proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            sandboxing.kill_process_group(proc.pid)
            rc = proc.wait()
    ms = round((time.perf_counter() - started) * 1000, 1)
    if timed_out:
        return Disassembly(False, reason="NVDISASM_TIMEOUT", tool=tool_version(tool), ms=ms)
    text = b"".join(chunks)[:cap].decode("utf-8", "replace")
    if rc != 0 and not truncated:
        return Disassembly(False, reason="NVDISASM_FAILED", tool=tool_version(tool), ms=ms)
    return Disassembly(True, text, truncated, tool=tool_version(tool), ms=ms)
