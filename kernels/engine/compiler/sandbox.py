"""Where the compile worker runs: the command line that starts it, inside bubblewrap.

What the sandbox shows (read-only): the Python installation, the system library folders, the few
Python packages that ``cupy.cuda.nvrtc`` imports, NVRTC's library folder, the CUDA header
folder, the worker script and the engine's one NVRTC call it loads (nvrtc_compile.py). Nothing
else: no repository, no home, no /proc, an empty environment, a private /tmp, no network
(``--unshare-all``), its own session, and it dies with its parent.

The only way around it is ``MKC_UNSAFE_UNSANDBOXED_COMPILE=1`` (local development on a machine
without user namespaces). It is loud on purpose and CI asserts it is off. What both sandboxes
share (bwrap_binary, SandboxUnavailable, the switch, the bubblewrap options) is in
``kernels/engine/sandboxing.py``.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .. import sandboxing
from ..sandboxing import SandboxUnavailable, bwrap_binary
from ..settings import engine_settings

UNSAFE_ENV = sandboxing.UNSAFE_COMPILE_ENV
WORKER_IN_SANDBOX = "/sandbox/worker.py"
WORKER_FILE = Path(__file__).with_name("worker.py")
# The shared NVRTC call the worker loads from its own folder (worker.NVRTC_COMPILE_FILE).
NVRTC_COMPILE_IN_SANDBOX = "/sandbox/nvrtc_compile.py"
NVRTC_COMPILE_FILE = Path(__file__).with_name("nvrtc_compile.py")

# Packages `from cupy.cuda import nvrtc` imports (checked by a test that lists sys.modules).
PACKAGES = ("cupy", "cupy_backends", "cupyx", "numpy", "cuda", "fastrlock")
SYSTEM_DIRS = ("/usr/lib", "/usr/lib64", "/usr/lib32", "/lib", "/lib64", "/lib32")
SYSTEM_FILES = ("/etc/ld.so.cache",)


__all__ = ["UNSAFE_ENV", "SandboxUnavailable", "Toolchain", "available_headers", "bwrap_args", "bwrap_binary",
           "find_toolchain", "worker_argv"]


@dataclass(frozen=True)
class Toolchain:
    """The files a compile needs, found on this machine."""

    python: str  # the real interpreter binary (not a venv symlink)
    python_prefix: str  # sys.base_prefix: the interpreter's standard library lives here
    nvrtc_lib: str  # absolute path of libnvrtc.so.*
    include_dir: str | None  # CUDA headers (cuda_fp16.h ...), None when not installed
    package_dirs: tuple[str, ...] = field(default_factory=tuple)  # dirs to bind
    sys_path: tuple[str, ...] = field(default_factory=tuple)  # their parents, for the worker

    @property
    def nvrtc_dir(self) -> str:
        return os.path.dirname(self.nvrtc_lib)

    def preload(self) -> list[str]:
        """libnvrtc-builtins (NVRTC dlopens it by name at the first compile), then NVRTC."""
        major = os.path.basename(self.nvrtc_lib).split(".so.")[-1].split(".")[0]
        builtins = sorted(glob.glob(os.path.join(self.nvrtc_dir, f"libnvrtc-builtins.so.{major}*")))
        return [os.path.realpath(b) for b in builtins[:1]] + [self.nvrtc_lib]


@lru_cache(maxsize=1)
def find_toolchain() -> Toolchain:
    python = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    nvrtc_lib = _find_nvrtc()
    package_dirs: list[str] = []
    sys_path: list[str] = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        for loc in spec.submodule_search_locations:
            loc = os.path.realpath(loc)
            package_dirs.append(loc)
            parent = os.path.dirname(loc)
            if parent not in sys_path:
                sys_path.append(parent)
            libs = loc + ".libs"  # auditwheel's vendored libraries (numpy.libs)
            if os.path.isdir(libs):
                package_dirs.append(libs)
    return Toolchain(
        python=python, python_prefix=os.path.realpath(sys.base_prefix), nvrtc_lib=nvrtc_lib,
        include_dir=_find_include_dir(nvrtc_lib), package_dirs=tuple(dict.fromkeys(package_dirs)),
        sys_path=tuple(sys_path),
    )


def _find_nvrtc() -> str:
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
    except ImportError as exc:
        raise SandboxUnavailable("NVRTC_MISSING", "cuda.pathfinder not importable") from exc
    try:
        loaded = load_nvidia_dynamic_lib("nvrtc")
    except Exception as exc:  # DynamicLibNotFoundError and friends
        raise SandboxUnavailable("NVRTC_MISSING", str(exc)[:200]) from exc
    if not loaded.abs_path:
        raise SandboxUnavailable("NVRTC_MISSING", "no absolute path for libnvrtc")
    return os.path.realpath(str(loaded.abs_path))  # LoadedDL (cuda.pathfinder: untyped here)


# Files that make a header folder complete for every allowed header (mma.h needs crt/mma.h).
HEADER_FILES = ("cuda_fp16.h", "cuda_bf16.h", "mma.h", "crt/mma.h")


def _find_include_dir(nvrtc_lib: str) -> str | None:
    """CUDA headers: $MKC_CUDA_INCLUDE, the include/ beside NVRTC's lib/ (wheel:
    nvidia/cu13/{lib,include}; toolkit: /usr/local/cuda/targets/<arch>/{lib,include}), then
    /usr/local/cuda/include. The first folder holding every allowed header wins; failing that,
    the first with cuda_fp16.h (then mma.h is unavailable here, see available_headers())."""
    candidates = [engine_settings().cuda_include]
    candidates.append(os.path.join(os.path.dirname(os.path.dirname(nvrtc_lib)), "include"))
    candidates.append("/usr/local/cuda/include")
    candidates = [os.path.realpath(c) for c in candidates if c and os.path.isdir(c)]
    for c in candidates:
        if all(os.path.isfile(os.path.join(c, f)) for f in HEADER_FILES):
            return c
    for c in candidates:
        if os.path.isfile(os.path.join(c, "cuda_fp16.h")):
            return c
    return None


def available_headers(tc: Toolchain) -> tuple[str, ...]:
    """The allowed headers that can really be included on this machine."""
    from ..headers import ALLOWED_HEADERS

    if not tc.include_dir:
        return ()
    need = {"mma.h": ("mma.h", "crt/mma.h")}
    return tuple(h for h in ALLOWED_HEADERS
                 if all(os.path.isfile(os.path.join(tc.include_dir, f)) for f in need.get(h, (h,))))


def worker_argv(tc: Toolchain, *, sandboxed: bool, cpu_s: float, data_bytes: int) -> list[str]:
    """The full command line that starts one compile worker."""
    worker = WORKER_IN_SANDBOX if sandboxed else str(WORKER_FILE)
    config = {"preload": tc.preload(), "sys_path": list(tc.sys_path), "cpu_s": cpu_s,
              "data_bytes": data_bytes}
    python_cmd = [tc.python, "-I", "-S", "-B", worker, json.dumps(config)]
    if not sandboxed:
        return python_cmd
    return [bwrap_binary(), *bwrap_args(tc), "--", *python_cmd]


def bwrap_args(tc: Toolchain) -> list[str]:
    """Runs as nobody with no capabilities; sees what NVRTC needs, the worker script and the
    shared NVRTC call beside it."""
    read_only = [tc.python_prefix, os.path.dirname(tc.python), *tc.package_dirs, tc.nvrtc_dir]
    if tc.include_dir:
        read_only.append(tc.include_dir)
    return sandboxing.bwrap_args(
        system_dirs=SYSTEM_DIRS, system_files=SYSTEM_FILES, read_only=read_only,
        as_nobody=True, empty_dirs=("/sandbox",),
        mapped_read_only=[(str(WORKER_FILE), WORKER_IN_SANDBOX),
                          (str(NVRTC_COMPILE_FILE), NVRTC_COMPILE_IN_SANDBOX)],
    )
