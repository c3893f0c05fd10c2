"""The GPU lock: only one job uses a GPU at a time, across every process on this machine (several
web workers, the benchmark commands, Nsight Compute counters). An flock on a lock file, one per
bound device (CUDA_VISIBLE_DEVICES), so workers bound to different GPUs never wait on each other.
"""

from __future__ import annotations

import fcntl
import os
import threading
from typing import IO

from ..settings import engine_settings
from . import sandbox


def lock_path() -> str:
    """One lock per GPU: workers bound to different devices (CUDA_VISIBLE_DEVICES) never wait on each
    other. An unbound process uses CUDA's device 0, so it shares device 0's lock with a process bound
    to 0 (a web server bound by its dispatcher, and a benchmark run without a binding, on one card)."""
    device = sandbox.visible_devices() or "0"
    return engine_settings().gpu_lock or f"/tmp/kernels-gpu-{os.getuid()}-dev{device.replace(',', '_')}.lock"


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
