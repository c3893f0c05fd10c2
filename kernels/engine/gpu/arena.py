"""One device allocation per GPU worker, made with its context, from which CuPy's memory pool takes
the job's blocks.

Why: ``cudaMalloc`` waits behind every other process on the host that is starting CUDA (``cuInit``,
making or destroying a context), and on a host with several GPUs some worker always is. Forty
allocations of 16 MiB took 3.7 ms on an idle four-GPU host and 81 ms while the other three GPUs
started processes; a job makes about thirty while it checks correctness and uploads its timing
inputs, so checking took 190-300 ms instead of 60-90. Made while the worker warms up, before its
job, the one allocation is off the job's path. Blocks past its end come from ``cudaMalloc`` as before.

A block handed out is never given back to the arena (the worker grades one job and exits); CuPy's
pool keeps freed blocks and hands them out again, as it does with ``cudaMalloc``'s.
"""

from __future__ import annotations

import threading
from typing import Any

ALIGNMENT = 512  # bytes: CuPy's own allocation unit, so every block starts where cudaMalloc's would


class BumpRange:
    """Hands out consecutive, aligned, non-overlapping ranges of ``[0, size)``; ``None`` once a range
    does not fit. Safe from several threads (a job uploads its inputs on four)."""

    def __init__(self, size: int):
        if size < 0:
            raise ValueError("size must be >= 0")
        self.size = size
        self.used = 0
        self.misses = 0
        self._lock = threading.Lock()

    def take(self, nbytes: int) -> int | None:
        if nbytes < 0:
            raise ValueError("nbytes must be >= 0")
        rounded = -(-nbytes // ALIGNMENT) * ALIGNMENT
        with self._lock:
            offset = self.used
            if offset + rounded > self.size:
                self.misses += 1
                return None
            self.used = offset + rounded
            return offset


class DeviceArena:
    """``size`` bytes of device memory in one ``cudaMalloc``; ``allocate`` is a CuPy allocator."""

    def __init__(self, size: int):
        import cupy

        self.base = int(cupy.cuda.runtime.malloc(size))
        self.ranges = BumpRange(size)

    def allocate(self, nbytes: int) -> Any:
        import cupy

        offset = self.ranges.take(nbytes)
        if offset is None:
            return cupy.cuda.MemoryPointer(cupy.cuda.Memory(nbytes), 0)
        # Each block a memory object of its own: CuPy's pool keeps the block's object and drops a
        # pointer's offset. The arena (its owner) outlives every block; device 0 is the worker's
        # only one (the device need not be asked, which is a driver call per block).
        return cupy.cuda.MemoryPointer(cupy.cuda.UnownedMemory(self.base + offset, nbytes, self, 0), 0)

    def usage(self) -> dict[str, float]:
        """For the job's profile: how much of the arena it took, and how many blocks did not fit."""
        return {"arena_used_mb": self.ranges.used / (1 << 20), "arena_misses": float(self.ranges.misses)}


def use_arena(size: int) -> DeviceArena | None:
    """Make CuPy's memory pool take its blocks from one ``size``-byte allocation. ``None`` (CuPy
    allocates with ``cudaMalloc`` as before) when ``size`` is 0 or the device cannot give that much."""
    if size <= 0:
        return None
    import cupy

    try:
        arena = DeviceArena(size)
    except cupy.cuda.runtime.CUDARuntimeError:
        return None
    cupy.cuda.set_allocator(cupy.cuda.MemoryPool(arena.allocate).malloc)
    return arena
