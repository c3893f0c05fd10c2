"""The GPU half of the grading engine: fresh sandboxed worker processes that check and
time a learner's compiled kernel, and the interleaved timing used by the benchmarks.

    from kernels.engine.gpu import gpu_available, run_job
    result = run_job(exercise, compiled, launch_plan, on_phase)

Imports numpy, cupy and the standard library only, and nothing heavy at import time: this module
never initialises CUDA in the calling process (workers are separate processes).
"""

from __future__ import annotations

import functools
import glob
import subprocess
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..compiler import CompiledKernel
    from ..exercise import Exercise
    from ..launch import LaunchPlan
    from ..result import Result

__all__ = ["gpu_available", "run_job"]


@functools.lru_cache(maxsize=1)
def _probe() -> bool:
    if not glob.glob("/dev/nvidia[0-9]*"):
        return False
    # Ask in a throw-away process: this process must never initialise CUDA itself.
    code = "import cupy; import sys; sys.exit(0 if cupy.cuda.runtime.getDeviceCount() > 0 else 1)"
    try:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def gpu_available() -> bool:
    """True when a CUDA GPU can be used here. ``MKC_GPU=0`` forces False, ``=1`` True."""
    from ..settings import engine_settings

    forced = engine_settings().gpu
    return _probe() if forced is None else forced


def run_job(exercise: Exercise, compiled: CompiledKernel, launch_plan: LaunchPlan | dict[str, Any],
            on_phase: Callable[[str], object] | None = None, **kwargs: Any) -> Result:
    from .runner import run_job as _run

    return _run(exercise, compiled, launch_plan, on_phase, **kwargs)
