"""What goes to a GPU worker and what comes back: ``build_job`` turns an exercise, the learner's
compiled kernel and its launch plan into the JSON job the worker runs (the spec as plain JSON, the
reference cubins and the timing hold's, a fresh secret seed, the limits); ``to_result`` turns the worker's final event
(result, timeout, crash, unusable worker) and its captured device output into a ``Result``.
"""

from __future__ import annotations

import base64
import logging
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import codes
from ..result import Message, Result, Verdict
from .hold import HOLD_US, hold_cubin
from .trusted_compile import compile_trusted
from .worker_process import Event, Job, Limits, Worker

if TYPE_CHECKING:
    from ..compiler import CompiledKernel
    from ..exercise import Exercise
    from ..launch import LaunchPlan

log = logging.getLogger(__name__)


def _plan_dict(plan: LaunchPlan | dict[str, Any]) -> dict[str, Any]:
    if isinstance(plan, dict):
        return {"block": list(plan["block"]), "tile": list(plan["tile"]), "smem": int(plan.get("smem", 0))}
    return {"block": list(plan.block), "tile": list(plan.tile), "smem": int(plan.smem)}


def exercise_payload(exercise: Exercise) -> dict[str, Any]:
    """What the worker needs of the spec, as plain JSON (the worker does not read YAML)."""
    return {
        "id": exercise.id,
        "folder": str(exercise.folder.resolve()),
        "params": [{"name": p.name, "type": p.type, "role": p.role, "shape": list(p.shape or ())}
                   for p in exercise.kernel.params],
        "output_grid": {"rows": exercise.output_grid.rows, "cols": exercise.output_grid.cols},
        "correctness_sizes": [dict(s) for s in exercise.correctness_sizes],
        "timing_sizes": [dict(s) for s in exercise.timing_sizes],
        "tolerance": dict(exercise.tolerance),
        "work": {"metric": exercise.work.metric, "expr": exercise.work.expr},
        "baseline": exercise.baseline,
        "tiers": [{"id": t.id, "against": t.against, "speedup": t.speedup, "xp": t.xp}
                  for t in exercise.tiers],
        "pass_xp": exercise.pass_xp,
    }


def build_job(exercise: Exercise, compiled: CompiledKernel, plan: LaunchPlan | dict[str, Any], *,
              limits: Limits, seed: int | None = None, do_timing: bool = True,
              timing_sizes: list[Mapping[str, int]] | None = None) -> Job:
    arch = getattr(compiled, "arch", None) or "sm_90"
    payload = exercise_payload(exercise)
    if timing_sizes is not None:
        payload["timing_sizes"] = [dict(s) for s in timing_sizes]
    refs = {}
    for name in ("naive", "tiled"):
        rk = exercise.references[name]
        cubin = compile_trusted(str(exercise.path(rk.file)), exercise.kernel.name, arch,
                                headers=exercise.headers)
        refs[name] = {"cubin_b64": base64.b64encode(cubin).decode(), "name": exercise.kernel.name,
                      "launch": rk.launch.as_request()}
    return {
        "exercise": payload,
        "learner": {"cubin_b64": base64.b64encode(compiled.cubin).decode(),
                    "name": compiled.kernel_name, "launch": _plan_dict(plan)},
        "references": refs,
        # the GPU-side wait queued before each cuBLAS baseline's timing window (hold.py)
        "hold": {"cubin_b64": base64.b64encode(hold_cubin(arch)).decode(), "us": HOLD_US},
        "seed": seed if seed is not None else secrets.randbits(63),
        "limits": {"launch_s": limits.launch_s, "timing_s": limits.timing_s, "timing_rse": limits.timing_rse,
                   "job_s": limits.job_s, "too_slow_ratio": limits.too_slow_ratio},
        "work_amounts": [exercise.work.amount(s) for s in payload["timing_sizes"]],
        "correctness_work": [exercise.work.amount(s) for s in payload["correctness_sizes"]],
        "do_timing": do_timing,
    }


# ---- Result assembly ----------------------------------------------------------------------

def to_result(final: Event, worker: Worker, exercise_id: str) -> Result:
    kind = final.get("ev")
    flags: list[Message] = []
    text, total = worker.learner_output()  # what the learner's printf wrote to the worker's stdout pipe
    if total:
        flags.append(Message("DEVICE_OUTPUT", {"text": text[:4096], "bytes": total,
                                               "truncated": total > len(text[:4096])}))
    if kind == "timeout":
        return Result(verdict=Verdict.TIME_LIMIT, exercise=exercise_id, flags=flags,
                      message=Message(codes.TIME_LIMIT_EXCEEDED,
                                      {"seconds": round(float(final["seconds"]), 3),
                                       "phase": final.get("phase")}))
    if kind == "crashed":
        log.warning("GPU worker crashed (rc=%s): %s", final.get("returncode"), final.get("stderr"))
        return Result(verdict=Verdict.UNAVAILABLE, exercise=exercise_id, flags=flags,
                      message=Message(codes.UNAVAILABLE_WORKER_CRASHED, {"stage": final.get("phase")}))
    if kind == "broken":
        log.warning("GPU worker unusable: %s %s", final.get("error"), final.get("stderr"))
        return Result(verdict=Verdict.UNAVAILABLE, exercise=exercise_id, flags=flags,
                      message=Message(codes.UNAVAILABLE_WORKER_CRASHED, {"stage": final.get("stage", "start")}))
    # the worker sends Result.to_dict(): one Result path, read back by the same code that wrote it
    try:
        res = Result.from_dict(final["result"])
    except (KeyError, TypeError, ValueError):  # not a Result: treat the worker as broken, say so
        log.warning("GPU worker sent a malformed result: %.500r", final.get("result"))
        return Result(verdict=Verdict.UNAVAILABLE, exercise=exercise_id, flags=flags,
                      message=Message(codes.UNAVAILABLE_WORKER_CRASHED, {"stage": "result"}))
    res.exercise = exercise_id
    res.flags = flags + res.flags
    res.versions = {k: str(v) for k, v in res.versions.items()}
    res.versions["gpu_worker"] = "sandboxed" if worker.sandboxed else "UNSANDBOXED"
    return res
