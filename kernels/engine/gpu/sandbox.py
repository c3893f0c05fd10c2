"""The command line that starts one GPU worker inside bubblewrap.

Like the compile sandbox, but the worker needs the GPU: each /dev/nvidia* node is dev-bound,
the driver's library folders are visible read-only and LD_LIBRARY_PATH is passed in (on the GPU
machines libcuda lives in /usr/lib and /usr/local/nvidia/lib64). The repository's kernels/
folder is bound read-only (the worker module and the exercises' reference.py). Everything else:
an empty environment, a private /tmp, no network (--unshare-all), its own session, and it dies
with its parent. /proc is mounted (CUDA reads it) but the environment is empty (except
``CUDA_VISIBLE_DEVICES`` when this process has one: a worker bound to one GPU), so
/proc/self/environ holds nothing secret. The BLAS libraries numpy may use are held to one
thread (``BLAS_ONE_THREAD``).

``MKC_UNSAFE_UNSANDBOXED_GPU=1`` runs the worker without bubblewrap (local development
only; loud on purpose, CI asserts it is off).
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

from .. import sandboxing
from ..sandboxing import SandboxUnavailable, bwrap_binary

UNSAFE_ENV = sandboxing.UNSAFE_GPU_ENV
REPO_ROOT = Path(__file__).resolve().parents[3]  # the folder holding kernels/
KERNELS_DIR = REPO_ROOT / "kernels"
SYSTEM_DIRS = ("/usr", "/opt", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc/alternatives")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf")
DRIVER_LIB_DIRS = ("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib")
PACKAGES = ("numpy", "cupy", "cupy_backends", "cupyx", "fastrlock", "cuda", "nvidia", "yaml")
# The worker's host checks multiply a few sampled rows by a whole matrix in float64 while another
# thread times rounds and a third draws inputs: BLAS's own thread pool then fights those threads
# (a 9 x 2048 by 2048 x 2048 product: 8-12 ms on one thread, 130-220 ms with OpenBLAS's threads,
# measured on a busy 2-core machine), so every BLAS numpy may load gets one thread.
BLAS_ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# One hardware work queue per worker context instead of eight. Every job makes a fresh context, and
# on a host with several GPUs the driver makes contexts one at a time: measured on 4 H100/H200 of one
# host, four workers making contexts at once took 0.9-1.1 s each with eight queues and 0.5-0.7 s with
# one (alone: 0.29 s and 0.24 s). A job times its kernels on one stream and has waited for every
# upload before its first timed round, so nothing else can queue between its timed launches.
ONE_QUEUE = {"CUDA_DEVICE_MAX_CONNECTIONS": "1"}


__all__ = ["UNSAFE_ENV", "SandboxUnavailable", "bwrap_args", "bwrap_binary", "module_command", "visible_devices",
           "worker_command", "worker_env"]


def package_dirs() -> list[str]:
    """site-packages folders holding what the worker imports (found without importing)."""
    out = []
    for name in PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue
        locs = list(spec.submodule_search_locations or []) or ([spec.origin] if spec.origin else [])
        for loc in locs:
            parent = os.path.dirname(os.path.realpath(loc.rstrip("/")))
            if parent not in out:
                out.append(parent)
    return out


def library_path() -> str:
    parts = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    for d in DRIVER_LIB_DIRS:
        if os.path.isdir(d) and d not in parts:
            parts.append(d)
    return ":".join(parts)


def worker_command(opts: dict[str, Any], fd: int, *, sandboxed: bool) -> list[str]:
    return module_command("kernels.engine.gpu.worker", [str(fd), json.dumps(opts)], sandboxed=sandboxed)


def module_command(module: str, args: list[str], *, sandboxed: bool = True, gpu: str = "") -> list[str]:
    """``python -m module args`` in this sandbox (``gpu`` as in ``worker_env``), or without it."""
    python = sys.executable  # a venv's python keeps its site-packages (its folder is bound)
    py_cmd = [python, "-s", "-B", "-m", module, *args]
    if not sandboxed:
        return py_cmd
    return [bwrap_binary(), *bwrap_args(gpu), "--", *py_cmd]


def worker_env(*, sandboxed: bool, gpu: str = "") -> dict[str, str]:
    """Environment of the worker (only used unsandboxed; bwrap gets --clearenv + --setenv). ``gpu``:
    the CUDA_VISIBLE_DEVICES it gets instead of this process's own (a benchmark measuring several GPUs
    from one process)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "PYTHONPATH": sandbox_pythonpath(),
           "PYTHONDONTWRITEBYTECODE": "1", "CUPY_CACHE_DIR": "/tmp/kernels-cupy-cache",
           "LD_LIBRARY_PATH": library_path(), **BLAS_ONE_THREAD, **ONE_QUEUE}
    device = gpu or visible_devices()
    if device:  # a grading worker bound to one GPU (python -m app worker --gpu N): its jobs run there
        env["CUDA_VISIBLE_DEVICES"] = device
    return env


def visible_devices() -> str:
    """This process's CUDA_VISIBLE_DEVICES (digits, commas, GPU-/MIG- UUIDs only), or ''."""
    value = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip()
    return value if value and all(c.isalnum() or c in ",-_" for c in value) else ""


def sandbox_pythonpath() -> str:
    return ":".join([str(REPO_ROOT)] + package_dirs())


def bwrap_args(gpu: str = "") -> list[str]:
    """Sees the kernels/ folder, /proc, the driver's libraries and the /dev/nvidia* nodes. ``gpu`` as
    in ``worker_env``."""
    read_only = [*DRIVER_LIB_DIRS, sys.base_prefix, sys.prefix,
                 os.path.dirname(os.path.realpath(sys.executable)), *package_dirs(), str(KERNELS_DIR)]
    return sandboxing.bwrap_args(
        system_dirs=SYSTEM_DIRS, system_files=SYSTEM_FILES, read_only=read_only, mount_proc=True,
        dev_binds=sorted(glob.glob("/dev/nvidia*")), env=worker_env(sandboxed=True, gpu=gpu),
    )
