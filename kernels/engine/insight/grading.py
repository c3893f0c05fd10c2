"""How grade() gets its insight section, in two calls, so grade() itself changes by a few lines:

    job = insight.grading.begin(exercise, compiled, plan, text)    # right after the compile
    ...                                                             # the GPU phases (about 1 s)
    result.insight = insight.grading.complete(job, exercise, result, compiled, plan)

``begin`` starts the static part (nvdisasm in its sandbox, PTX, occupancy) in a background
thread, so the disassembler's ~0.3 s runs while the GPU checks and times the kernel; ``complete``
joins it, places the kernel on the roofline from the Result's timings, reads hardware counters
when the launch asked for them (``"profile": true``) and a GPU was used, and evaluates the hints.
Neither ever raises: a failure leaves the section out (None) and is logged.
"""

from __future__ import annotations

import concurrent.futures
import logging
from typing import Any

from ..settings import engine_settings
from . import finish, start_static

log = logging.getLogger(__name__)
JOIN_TIMEOUT_S = 30.0


def enabled() -> bool:
    """``MKC_INSIGHT=off`` leaves the section out (an operator's switch, and the benchmark's baseline)."""
    return engine_settings().insight


def begin(exercise: Any, compiled: Any, plan: Any, source: str) -> concurrent.futures.Future[dict[str, Any]] | None:
    if not enabled():
        return None
    try:
        resources = dict(compiled.resources or {})
        return start_static(exercise_id=exercise.id, cubin=compiled.cubin, ptx=compiled.ptx, arch=compiled.arch,
                            block=tuple(plan.block), registers=resources.get("registers"),
                            shared_bytes=int(resources.get("shared_bytes") or 0) + int(plan.smem),
                            resources=resources, source=source, sandboxed=bool(compiled.sandboxed))
    except Exception:
        log.exception("insight: could not start")
        return None


def complete(job: concurrent.futures.Future[dict[str, Any]] | None, exercise: Any, result: Any, compiled: Any,
             plan: Any, *, gpu_used: bool) -> dict[str, Any] | None:
    if job is None:
        return None
    try:
        static = job.result(timeout=JOIN_TIMEOUT_S)
    except Exception:
        log.exception("insight: the static part failed")
        return None
    timings = [t.__dict__ if hasattr(t, "__dict__") else dict(t) for t in (result.timings or [])]
    gpu_name = result.gpu.name if getattr(result, "gpu", None) else None
    counters = None
    if getattr(plan, "profile", False):
        counters = _counters(exercise, compiled, plan) if gpu_used and result.passed else \
            {"available": False, "reason": "NCU_NOT_RUN"}
    try:
        return finish(static, exercise, timings, gpu_name, counters)
    except Exception:
        log.exception("insight: could not finish")
        return None


def _counters(exercise: Any, compiled: Any, plan: Any) -> dict[str, Any]:
    """Counters under the GPU lock the grading runner uses, so no timing overlaps them."""
    from . import counters

    lock_class: type | None
    try:
        from ..gpu.gpu_lock import GpuLock as lock_class
    except Exception:  # the GPU part is not complete here
        lock_class = None
    try:
        if lock_class is None:
            return counters.collect(exercise, compiled.cubin, compiled.kernel_name, plan)
        with lock_class():
            return counters.collect(exercise, compiled.cubin, compiled.kernel_name, plan)
    except Exception:
        log.exception("insight: counters failed")
        return {"available": False, "reason": "NCU_FAILED"}
