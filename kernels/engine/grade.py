"""``grade(exercise_id, source, launch, on_phase=cb) -> Result``: the engine's one entry point.

Order (cheapest and safest first): exercise lookup -> size and source policy -> launch
request -> sandboxed compile (phase ``compiling``) -> the GPU part (``kernels.engine.gpu``,
phases ``checking``, ``timing``) when a GPU is here -> ``done``.

Without a GPU the Result carries the compile outcome with verdict UNAVAILABLE. grade() never
raises for anything a submission can cause: every outcome is a Result with a message code.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import platform
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from . import codes
from .compiler import CompileError, Compiler, get_compiler, nvrtc_version
from .exercise import Exercise, ExerciseSpecError, UnknownExercise, load_exercise
from .insight import grading as insight_grading
from .launch import LaunchPlan, LaunchRejected, check_shared_total, validate_launch
from .policy import SourceRejected, check_source
from .result import LaunchInfo, Message, Phase, PhaseTiming, Resources, Result, Verdict

ENGINE_VERSION = "1.0"
GPU_MODULE = "kernels.engine.gpu"

log = logging.getLogger(__name__)
PhaseCallback = Callable[[str], Any]


class _PhaseClock:
    """Forwards phase changes to the caller's callback and times each phase."""

    def __init__(self, callback: PhaseCallback | None):
        self.callback = callback
        self.timings: list[PhaseTiming] = []
        self._current: str | None = None
        self._since = time.perf_counter()

    def __call__(self, phase: str | Phase) -> None:
        name = phase.value if isinstance(phase, Phase) else str(phase)
        now = time.perf_counter()
        if self._current is not None:
            self.timings.append(PhaseTiming(name=self._current, ms=round((now - self._since) * 1000, 3)))
        self._current = None if name == Phase.DONE.value else name
        self._since = now
        if self.callback is not None:
            try:
                self.callback(name)
            except Exception:  # a broken progress callback must not change the verdict
                log.exception("on_phase callback failed")


def grade(exercise_id: str, source: str | bytes, launch: Any = None,
          on_phase: PhaseCallback | None = None, *, compiler: Compiler | None = None,
          exercises_root: str | None = None) -> Result:
    clock = _PhaseClock(on_phase)
    clock(Phase.VALIDATING)
    versions = {"engine": ENGINE_VERSION, "python": platform.python_version()}

    def finish(result: Result) -> Result:
        if result.exercise is None:
            result.exercise = exercise_id if isinstance(exercise_id, str) else None
        for k, v in versions.items():
            result.versions.setdefault(k, v)
        clock(Phase.DONE)
        if not result.phases:
            result.phases = clock.timings
        return result

    def fail(verdict: Verdict, code: str, params: dict[str, Any] | None = None, **extra: Any) -> Result:
        return finish(Result(verdict=verdict, message=Message(code, dict(params or {})), **extra))

    try:
        exercise = load_exercise(exercise_id, exercises_root)
    except UnknownExercise:
        return fail(Verdict.UNAVAILABLE, codes.UNAVAILABLE_UNKNOWN_EXERCISE, {"exercise": str(exercise_id)[:64]})
    except ExerciseSpecError:
        log.exception("bad exercise spec")
        return fail(Verdict.UNAVAILABLE, codes.UNAVAILABLE_INTERNAL, {"stage": "spec"})

    try:
        text = check_source(source)
    except SourceRejected as exc:
        return fail(Verdict.COMPILE_ERROR, exc.code, exc.params)

    try:
        plan = validate_launch(launch, exercise)
    except LaunchRejected as exc:
        return fail(Verdict.RUNTIME_ERROR, exc.code, exc.params)
    launch_info = _launch_info(plan, exercise)

    clock(Phase.COMPILING)
    compiler = compiler or get_compiler()
    versions.update(nvrtc=nvrtc_version(), arch=compiler.arch)
    cupy = sys.modules.get("cupy")  # loaded by nvrtc_version(); never imported just for this
    if cupy is not None and getattr(cupy, "__version__", None):
        versions["cupy"] = str(cupy.__version__)
    flags = [Message(codes.FLAG_UNSANDBOXED_COMPILE)] if not compiler.worker.sandboxed else []
    try:
        compiled = compiler.compile(text, exercise.kernel, headers=exercise.headers)
    except CompileError as exc:
        return fail(exc.verdict, exc.code, {**exc.params, **({"log_truncated": True} if exc.log_truncated else {})},
                    compile_log=exc.log, launch=launch_info, flags=flags)

    resources = Resources(**{k: compiled.resources.get(k) for k in (
        "registers", "shared_bytes", "local_bytes", "spill_store_bytes", "spill_load_bytes", "constant_bytes")})
    if (resources.spill_store_bytes or 0) + (resources.spill_load_bytes or 0) > 0:
        flags.append(Message(codes.FLAG_REGISTER_SPILL, {
            "spill_store_bytes": resources.spill_store_bytes, "spill_load_bytes": resources.spill_load_bytes}))
    if compiled.cached:
        flags.append(Message(codes.FLAG_CACHED_COMPILE))
    common = dict(compile_log=compiled.log, resources=resources, launch=launch_info, flags=flags)

    try:
        check_shared_total(plan, resources.shared_bytes)
    except LaunchRejected as exc:
        return fail(Verdict.RUNTIME_ERROR, exc.code, exc.params, **common)

    gpu = _gpu_module()
    if isinstance(gpu, Result):  # the GPU part exists but could not be imported
        gpu.compile_log, gpu.resources, gpu.launch, gpu.flags = compiled.log, resources, launch_info, flags
        return finish(gpu)
    if gpu is None or not _gpu_available(gpu):
        return fail(Verdict.UNAVAILABLE, codes.UNAVAILABLE_NO_GPU, {}, **common)

    # "Inside your kernel": disassembly etc. runs beside the GPU phases (insight/grading.py)
    insight_job = insight_grading.begin(exercise, compiled, plan, text)
    try:
        result = gpu.run_job(exercise, compiled, plan, clock)
    except Exception:
        log.exception("GPU grading failed")
        return fail(Verdict.UNAVAILABLE, codes.UNAVAILABLE_INTERNAL, {"stage": "gpu"}, **common)
    # The GPU side owns running; what the compile knows is filled in where it left gaps.
    if not result.compile_log:
        result.compile_log = compiled.log
    if result.resources is None:
        result.resources = resources
    if result.launch is None:
        result.launch = launch_info
    have = {f.code for f in result.flags}
    result.flags.extend(f for f in flags if f.code not in have)
    result.insight = insight_grading.complete(insight_job, exercise, result, compiled, plan, gpu_used=True)
    return finish(result)


def _launch_info(plan: LaunchPlan, exercise: Exercise) -> LaunchInfo:
    return LaunchInfo(block=list(plan.block), tile=list(plan.tile), smem=plan.smem,
                      grid=list(plan.grid(exercise, exercise.largest_timing_size)))


def _gpu_module() -> ModuleType | Result | None:
    """The GPU part, None when it is not installed here, or a Result explaining an import fault."""
    if importlib.util.find_spec(GPU_MODULE) is None:
        return None
    try:
        return importlib.import_module(GPU_MODULE)
    except Exception:
        log.exception("cannot import %s", GPU_MODULE)
        return Result(verdict=Verdict.UNAVAILABLE, message=Message(codes.UNAVAILABLE_INTERNAL, {"stage": "gpu_import"}))


def _gpu_available(gpu: ModuleType) -> bool:
    probe = getattr(gpu, "gpu_available", None)
    if probe is None:  # the GPU part is not complete here
        return False
    try:
        return bool(probe())
    except Exception:
        log.exception("gpu_available() failed")
        return False


__all__ = ["grade", "ENGINE_VERSION"]
