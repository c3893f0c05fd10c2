"""A GPU stand-in for cluster tests and benchmarks on machines without a GPU.

``grade`` has the engine's signature and runs the engine's real cheap steps (exercise lookup,
source policy, launch validation) and reports the same phases, but instead of compiling and
running the kernel it sleeps as long as a GPU job (``MKC_FAKE_GPU_SECONDS``, default 1.0 s, the
direct engine time of a GEMM job on an H100) and answers PASSED with the spec's tiers. It never
stands in for grading in the product: only ``python -m app worker --grade app.bench.fake_gpu:grade``
and tests select it.

With ``MKC_FAKE_GPU_LOG=<file>`` each call appends a JSON line when its GPU part starts and one when
it ends (pid, the source's last line, wall-clock time), so a test can see how often and when a job
really ran, including runs cut short by kill -9.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kernels.engine.result import PhaseTiming, Result

PhaseHook = Callable[[str], None]  # told each engine phase as it starts (app.submissions.dispatcher)

SECONDS_ENV = "MKC_FAKE_GPU_SECONDS"
COMPILE_SECONDS_ENV = "MKC_FAKE_COMPILE_SECONDS"
BOMB_SECONDS_ENV = "MKC_FAKE_BOMB_SECONDS"
BOMB_MARK = "compile bomb"
SLOW_SECONDS_ENV = "MKC_FAKE_SLOW_COMPILE_SECONDS"
SLOW_MARK = "slow compile"
LOG_ENV = "MKC_FAKE_GPU_LOG"


def passed_result(exercise_id: str) -> Result:
    """PASSED with every tier of the exercise met, as the real GPU runner reports it."""
    from kernels.engine import load_exercise
    from kernels.engine.result import Message, Result, TierOutcome, Verdict, XpAward

    spec = load_exercise(exercise_id)
    tiers = [TierOutcome(id=t.id, against=t.against, threshold=t.speedup, met=True, xp=t.xp) for t in spec.tiers]
    return Result(verdict=Verdict.PASSED, exercise=exercise_id, message=Message("PASSED", {"sizes": 3}),
                  tiers=tiers, xp=XpAward(pass_xp=spec.pass_xp, tier_xp=sum(t.xp for t in tiers),
                                          total=spec.pass_xp + sum(t.xp for t in tiers)))


def _checks(exercise_id: str, source: str, launch: Any, phase: PhaseHook) -> tuple[str | None, Result | None]:
    """The engine's real cheap steps: (source text, None), or (None, the refusal's Result)."""
    from kernels.engine import load_exercise
    from kernels.engine.launch import LaunchRejected, validate_launch
    from kernels.engine.policy import SourceRejected, check_source
    from kernels.engine.result import Message, Result, Verdict

    phase("validating")
    exercise = load_exercise(exercise_id)
    try:
        text = check_source(source)
        validate_launch(launch, exercise)
    except SourceRejected as exc:
        return None, Result(verdict=Verdict.COMPILE_ERROR, exercise=exercise_id, message=Message(exc.code, exc.params))
    except LaunchRejected as exc:
        return None, Result(verdict=Verdict.RUNTIME_ERROR, exercise=exercise_id, message=Message(exc.code, exc.params))
    phase("compiling")
    return text, None


class _Phases:
    """Forwards each phase to the caller's hook and times it, as the engine fills ``Result.phases``
    (the benchmarks report them per phase; the GPU budget counts checking and timing)."""

    def __init__(self, hook: PhaseHook | None):
        self.hook = hook
        self.marks: list[tuple[str, float]] = []

    def __call__(self, name: str) -> None:
        self.marks.append((name, time.perf_counter()))
        if self.hook is not None:
            self.hook(name)

    def timings(self) -> list[PhaseTiming]:
        from kernels.engine.result import PhaseTiming

        ends = [t for _, t in self.marks[1:]] + [time.perf_counter()] * bool(self.marks)  # the last runs until now
        return [PhaseTiming(name=name, ms=round((end - start) * 1000, 3))
                for (name, start), end in zip(self.marks, ends, strict=True)]


def grade(exercise_id: str, source: str, launch: Any = None, on_phase: PhaseHook | None = None) -> Result:
    phase = _Phases(on_phase)
    text, refused = _checks(exercise_id, source, launch, phase)
    if refused is not None:
        return refused
    assert text is not None  # _checks returns the text whenever it refuses nothing
    tag = text.strip().splitlines()[-1]
    _log("start", tag)
    seconds = float(os.environ.get(SECONDS_ENV, "1.0"))
    phase("checking")
    time.sleep(seconds / 2)
    phase("timing")
    time.sleep(seconds / 2)
    _log("end", tag)
    result = passed_result(exercise_id)
    result.phases = phase.timings()
    return result


def grade_on_card(exercise_id: str, source: str, launch: Any = None, on_phase: PhaseHook | None = None) -> Result:
    """``grade`` on a named fake card, for benchmarks of several GPUs on one host: a job that reached
    the fake GPU reports what the real runner does: the card it ran on (``gpu.pci_bus_id``:
    ``fake:<CUDA_VISIBLE_DEVICES>``, the index ``python -m app worker --gpu N`` binds), one checked
    size, its checking and timing phases, and where its time went (``versions``' ``gpu_*_ms``)."""
    import dataclasses

    from kernels.engine.result import CorrectnessCase, GpuInfo, PhaseTiming

    started = time.perf_counter()
    result = grade(exercise_id, source, launch, on_phase)
    if result.message.code != "PASSED":  # refused by the cheap checks: it never reached a GPU
        return result
    job_ms = (time.perf_counter() - started) * 1000
    card = os.environ.get("CUDA_VISIBLE_DEVICES", "0")
    return dataclasses.replace(
        result, gpu=GpuInfo(name="fake GPU", pci_bus_id=f"fake:{card}"),
        correctness=[CorrectnessCase(size={"M": 17, "N": 17, "K": 17}, ok=True)],
        phases=[PhaseTiming("checking", round(job_ms / 2, 3)), PhaseTiming("timing", round(job_ms / 2, 3))],
        versions={"gpu_wait_lock_ms": "0.0", "gpu_job_ms": f"{job_ms:.1f}"})


def grade_gpu_gone(exercise_id: str, source: str, launch: Any = None, on_phase: PhaseHook | None = None) -> Result:
    """A GPU that disappeared under a running worker: the engine's own answer when a kernel compiled
    but no GPU can run it (UNAVAILABLE_NO_GPU). Tests select it to check that such a job waits again."""
    from kernels.engine.result import Message, Result, Verdict

    text, refused = _checks(exercise_id, source, launch, on_phase or (lambda _name: None))
    if refused is not None:
        return refused
    assert text is not None  # _checks returns the text whenever it refuses nothing
    _log("no-gpu", text.strip().splitlines()[-1])
    return Result(verdict=Verdict.UNAVAILABLE, exercise=exercise_id, message=Message("UNAVAILABLE_NO_GPU", {}))


def compile_first(exercise_id: str, source: str, launch: Any = None,
                  on_phase: PhaseHook | None = None, cpu_s: float | None = None) -> Result | None:
    """The compile stage's stand-in: ``MKC_FAKE_COMPILE_SECONDS`` (0.02) per compile; a source holding
    ``compile bomb`` burns ``MKC_FAKE_BOMB_SECONDS`` (3) and ends as the engine's COMPILE_TIMEOUT; one
    holding ``slow compile`` needs ``MKC_FAKE_SLOW_COMPILE_SECONDS`` (1.5), then compiles. ``cpu_s`` (the
    pipeline's first slice): a compile that needs more burns only that and ends as COMPILE_TIMEOUT, logged
    as "sliced" instead of "compiled"."""
    from kernels.engine import codes
    from kernels.engine.result import Message, Result, Verdict

    text, refused = _checks(exercise_id, source, launch, on_phase or (lambda _name: None))
    if refused is not None:
        return refused
    assert text is not None  # _checks returns the text whenever it refuses nothing
    tag = text.strip().splitlines()[-1]
    _log("compile", tag)
    if BOMB_MARK in text:
        needs = float("inf")  # a bomb never compiles: it burns whatever limit it gets
        limit = float(os.environ.get(BOMB_SECONDS_ENV, "3"))
    elif SLOW_MARK in text:
        needs = limit = float(os.environ.get(SLOW_SECONDS_ENV, "1.5"))
    else:
        needs = limit = float(os.environ.get(COMPILE_SECONDS_ENV, "0.02"))
    if cpu_s is not None and needs > cpu_s:
        time.sleep(cpu_s)
        _log("sliced", tag)
        return Result(verdict=Verdict.COMPILE_ERROR, exercise=exercise_id,
                      message=Message(codes.COMPILE_TIMEOUT, {"seconds": cpu_s}))
    time.sleep(limit)
    _log("compiled", tag)
    if needs > limit:
        return Result(verdict=Verdict.COMPILE_ERROR, exercise=exercise_id,
                      message=Message(codes.COMPILE_TIMEOUT, {"seconds": limit}))
    return None


def _log(event: str, tag: str) -> None:
    path = os.environ.get(LOG_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as handle:  # one short line per write: appends stay whole
            handle.write(json.dumps({"ev": event, "pid": os.getpid(), "tag": tag, "t": time.time()}) + "\n")
