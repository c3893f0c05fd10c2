"""A GPU-side wait queued before a timing window (``GpuHold``), for calls whose host dispatch is
longer than the L2 flush queued before them.

Why: CUDA events around one ``cupy.matmul`` also time cuBLAS's host dispatch when the GPU has run
out of queued work before the call is issued. A learner's kernel launches in a few microseconds,
hidden behind the L2 flush queued before its start event; cuBLAS takes tens of microseconds (up to
~56 us seen inside a window on an H100), longer than the flush at small sizes. So 1024^3 HGEMM
timed at 64 us instead of 8 us. Queued after the flush and before the start event, ``hold`` keeps
the GPU busy for HOLD_US while the host queues the start event and the cuBLAS kernels: the window
then holds GPU time only. (A CUDA graph would do the same, but CuPy refuses cuBLAS calls during
stream capture.)

Used by the grader's cuBLAS baselines (timed_runs.py; the cubin is compiled by the parent like the
references, trusted_compile.py, and sent with the job) and by the ladder benchmark
(kernels/ladder/bench.py, compiled in process).

Imports numpy and cupy lazily and the standard library.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HOLD_FILE = Path(__file__).with_name("hold.cu")
KERNEL_NAME = "hold"
HOLD_US = 200  # over three times the longest cuBLAS dispatch seen inside a timing window (~56 us)


class GpuHold:
    """Call it to queue one ``hold`` launch (one thread) on the current stream."""

    def __init__(self, function: Any, us: int = HOLD_US, keep: Any = None):
        import numpy as np

        self.function = function
        self.args = (np.uint64(int(us) * 1000),)
        self.us = int(us)
        self._keep = keep  # the module that owns ``function`` (a loaded cubin), kept alive

    def __call__(self) -> None:
        self.function((1, 1, 1), (1, 1, 1), self.args)


def hold_from_cubin(cubin: bytes, us: int = HOLD_US) -> GpuHold:
    """The GPU worker's hold: the cubin compiled by the parent (``hold_cubin``)."""
    import cupy

    module = cupy.cuda.function.Module()
    module.load(cubin)
    return GpuHold(module.get_function(KERNEL_NAME), us, keep=module)


def hold_compiled_here(us: int = HOLD_US) -> GpuHold:
    """The ladder's hold: compiled by CuPy in this process (it runs no learner code)."""
    import cupy

    return GpuHold(cupy.RawKernel(HOLD_FILE.read_text(encoding="utf-8"), KERNEL_NAME), us)


def hold_cubin(arch: str) -> bytes:
    """The hold kernel compiled for ``arch`` (in the parent, cached like the reference kernels)."""
    from .trusted_compile import compile_trusted

    return compile_trusted(str(HOLD_FILE), KERNEL_NAME, arch)
