"""The GPU worker: one process, one job, then exit (run inside the GPU sandbox).

Lifecycle: start (import cupy, create the context, set small printf/malloc limits before any
launch, create the cuBLAS handle, allocate the L2 flush buffer: no launch yet) -> tell the parent
"ready" -> optionally read "prime" (the first launches) -> read ONE job from stdin (priming first
if that was not done) -> check correctness -> time -> send the Result -> exit. A fresh process per
job means a poisoned context (illegal address), leaked memory or state left in __device__
variables never reaches the next learner.

With ``"deferred": true`` in its options it imports first, says {"ev": "loaded"} and waits for a
"warm" line on stdin before it touches the GPU. The parent keeps such spares and tells them "warm"
and "prime" only when no job on this GPU is being timed (runner.py); a job sent with "gate" says
"checked" before its first timed round and waits for "time", so the parent can hold it until a
spare's context is made.

The events it sends are listed in protocol.py; the last one carries ``Result.to_dict()``, built
here from the Result dataclasses and the message codes of codes.py (the parent only adds what it
alone knows: device output, the sandbox mode, a cold start).

Modules: device.py (start-up, GPU description), launching.py (cubins, watched launches, faults),
timed_runs.py (one timed size), scoring.py (speedups, flags, tiers, XP).

Safety rules kept here, each closing a way a kernel could pass without computing the answer:
inputs are fresh random data from the job's secret
seed; every output is poisoned with NaN before each launch; the float64 reference is computed on
the host only after the learner's kernel finished, and never copied to the GPU; inputs are compared
with their host copies after each checked run; timed runs get refreshed inputs each round and some
of them (and always the last) are re-checked.

Imports numpy, cupy and the standard library only.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any

from .. import codes
from ..result import CorrectnessCase, Message, Mismatch, Result, Verdict, safe_number
from .arena import use_arena
from .budget import TooSlow, timing_deadline, too_slow_message
from .device import prime_device, set_process_limits, start_device
from .launching import (
    CudaFault,
    JobFailed,
    Kernel,
    Launch,
    cuda_error_name,
    cuda_errors,
    fault_message,
    input_modified,
    inputs_changed,
    load_reference,
    poison,
    run_learner_once,
    shape_of,
)
from .protocol import open_stream, send


def run_job(job: dict[str, Any], flusher: Any, profile: dict[str, float] | None = None) -> Result:
    """Check, then time, one job. ``profile`` (if given) receives where the time went, in ms."""
    started = time.perf_counter()  # the parent's job limit runs from about now (budget.py)
    profile = {} if profile is None else profile
    exercise = job["exercise"]
    reference = load_reference(exercise["folder"], exercise["id"])
    limits = job["limits"]
    launch_s = float(limits.get("launch_s", 3.0))
    learner = Kernel(job["learner"], exercise)
    result = Result(verdict=Verdict.PASSED, message=Message(codes.PASSED), exercise=exercise["id"])
    timing_wanted = job.get("do_timing", True) and bool(exercise.get("timing_sizes"))
    prepared = None
    if timing_wanted:  # the timing sizes' inputs are made and uploaded while the GPU checks
        from .timed_runs import INPUT_THREADS, prepare_inputs

        prepared = prepare_inputs(ThreadPoolExecutor(max_workers=INPUT_THREADS), reference, job, upload=True)
    profile["setup_ms"] = (time.perf_counter() - started) * 1e3
    ms_per_work = check_correctness(job, reference, learner, result, launch_s)
    result.message = Message(codes.PASSED, {"sizes": len(exercise["correctness_sizes"])})
    profile["checking_ms"] = (time.perf_counter() - started) * 1e3 - profile["setup_ms"]
    if not timing_wanted:
        return result

    from .hold import hold_from_cubin
    from .scoring import summarize
    from .timed_runs import SizeTimings, TimingRun, settle_all, time_one_size

    send({"ev": "phase", "name": "timing"})
    t_timing = time.perf_counter()
    hold_spec = job.get("hold")
    too_slow_ratio = float(limits.get("too_slow_ratio", 20.0))
    run = TimingRun(job=job, exercise=exercise, reference=reference, learner=learner,
                    references={name: Kernel(spec, exercise) for name, spec in job["references"].items()},
                    flusher=flusher, budget_s=float(limits.get("timing_s", 1.2)), prepared=prepared,
                    launch_limit_s=launch_s, target_rse=float(limits.get("timing_rse", 0.005)), result=result,
                    too_slow_ratio=too_slow_ratio, ms_per_work=ms_per_work,
                    deadline=timing_deadline(started, float(limits.get("job_s", 120.0))),
                    hold=(hold_from_cubin(base64.b64decode(hold_spec["cubin_b64"]), int(hold_spec["us"]))
                          if hold_spec else None),
                    checks=ThreadPoolExecutor(max_workers=1))
    for future in prepared or []:
        future.result()  # every upload is done: no copy runs while a kernel is timed
    profile["inputs_wait_ms"] = (time.perf_counter() - t_timing) * 1e3
    if job.get("gate"):  # the parent lets a spare finish making its context before anything is timed
        t_gate = time.perf_counter()
        send({"ev": "checked"})
        sys.stdin.readline()
        waited = time.perf_counter() - t_gate
        run.deadline += waited  # the parent moved the job's limit by as much
        profile["gate_ms"] = waited * 1e3
    per_size: list[SizeTimings] = []
    try:
        for index, sizes in enumerate(exercise["timing_sizes"]):
            per_size.append(time_one_size(run, sizes, index))
    except TooSlow as slow:
        settle_all(run, per_size)  # a wrong answer at a smaller size is the verdict
        # correct (every correctness case stays in the Result), but not timed: no speedups, no tiers
        result.verdict, result.message = Verdict.TOO_SLOW, too_slow_message(slow, too_slow_ratio)
        return result
    except JobFailed:
        settle_all(run, per_size)
        raise
    t_settle = time.perf_counter()
    settle_all(run, per_size)
    profile["settle_ms"] = (time.perf_counter() - t_settle) * 1e3
    t_summary = time.perf_counter()
    summarize(exercise, per_size, result)
    for index, entry in enumerate(per_size):
        profile.update({f"size{index}_{key}": value for key, value in entry.profile.items()})
    profile["summary_ms"] = (time.perf_counter() - t_summary) * 1e3
    profile["timing_ms"] = (time.perf_counter() - t_timing) * 1e3
    return result


def check_correctness(job: dict[str, Any], reference: Any, learner: Kernel, result: Result,
                      launch_s: float) -> float | None:
    """Every correctness size on fresh inputs; the first failure ends the job (JobFailed).

    Returns the learner's milliseconds per unit of work at the correctness size with the most work
    (CUDA events around its launch), from which its first timed launch is predicted (budget.py)."""
    import cupy
    import numpy as np

    exercise = job["exercise"]
    seed = int(job["seed"])
    tolerance = exercise.get("tolerance") or {}
    input_params = [p for p in exercise["params"] if p["role"] == "input"]
    output_param = next(p for p in exercise["params"] if p["role"] == "output")
    send({"ev": "phase", "name": "checking"})
    works = job.get("correctness_work") or []
    probe_index = max(range(len(works)), key=works.__getitem__) if works else -1
    ms_per_work: float | None = None
    for index, sizes in enumerate(exercise["correctness_sizes"]):
        rng = np.random.default_rng([seed, 1, index])
        host = reference.generate_inputs(sizes, rng)
        device = {p["name"]: cupy.asarray(host[p["name"]]) for p in input_params}
        output = cupy.empty(shape_of(output_param, sizes), dtype=cupy.float32)
        poison(output)
        buffers = dict(device, **{output_param["name"]: output})
        launch = learner.launcher(buffers, sizes)
        if index == probe_index:
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            launch = _between_events(launch, start, stop)
        try:
            run_learner_once(launch, "correctness", launch_s)
        except CudaFault as fault:
            message = fault_message(fault, sizes)
            result.correctness.append(CorrectnessCase(size=sizes, ok=False, message=message))
            raise JobFailed(_failed(result, Verdict.RUNTIME_ERROR, message)) from None
        got = output.get()
        changed = inputs_changed(device, host)
        if changed:
            message = input_modified(sizes, changed)
            result.correctness.append(CorrectnessCase(size=sizes, ok=False, message=message))
            raise JobFailed(_failed(result, Verdict.WRONG_ANSWER, message))
        found = reference.check(got, host, sizes, tolerance=tolerance)  # host float64, after the run
        if found is not None:
            mismatch = Mismatch(index=[int(v) for v in found["index"]], got=safe_number(found["got"]),
                                expected=safe_number(found["expected"]))
            message = Message(codes.WRONG_ANSWER, {"size": sizes, "index": mismatch.index, "got": mismatch.got,
                                                   "expected": mismatch.expected})
            result.correctness.append(CorrectnessCase(size=sizes, ok=False, mismatch=mismatch))
            raise JobFailed(_failed(result, Verdict.WRONG_ANSWER, message))
        result.correctness.append(CorrectnessCase(size=sizes, ok=True))
        if index == probe_index and works[index] > 0:
            ms_per_work = float(cupy.cuda.get_elapsed_time(start, stop)) / float(works[index])
        del device, output, buffers, host
    return ms_per_work


def _between_events(launch: Launch, start: Any, stop: Any) -> Launch:
    def timed() -> None:
        start.record()
        launch()
        stop.record()

    return timed


def _failed(result: Result, verdict: Verdict, message: Message) -> Result:
    result.verdict, result.message = verdict, message
    return result


def main(argv: list[str]) -> int:
    open_stream(int(argv[1]))
    options = json.loads(argv[2]) if len(argv) > 2 else {}
    set_process_limits()
    t0 = time.perf_counter()
    startup: dict[str, float] = {}  # where start-up time went (ms), sent with "ready" for benchmarks
    if options.get("deferred"):
        # Load now (CPU only: importing CuPy touches no GPU), create the CUDA context when told.
        import cupy  # noqa: F401

        from . import hold, scoring, timed_runs  # noqa: F401  (timing and numpy with them)

        preload_cublas()
        startup["imports_ms"] = (time.perf_counter() - t0) * 1e3
        send({"ev": "loaded"})
        if sys.stdin.readline().strip() != "warm":
            return 0  # the parent went away or shut the spare down
    try:
        t_warm = time.perf_counter()
        gpu, versions = start_device(options.get("printf_bytes", 64 << 10), options.get("heap_bytes", 1 << 20),
                                     startup)
        t_arena = time.perf_counter()
        arena = use_arena(int(options.get("arena_bytes", 0)))  # before anything else takes device memory
        startup["arena_ms"] = (time.perf_counter() - t_arena) * 1e3
        from .timing import L2Flusher

        t_flusher = time.perf_counter()
        flusher = L2Flusher()  # allocated only: its first write is part of priming
        startup["flusher_ms"] = (time.perf_counter() - t_flusher) * 1e3
        startup["warm_ms"] = (time.perf_counter() - t_warm) * 1e3
    except Exception as exc:  # no usable GPU in here: say so, the parent answers UNAVAILABLE
        send({"ev": "broken", "stage": "start", "error": f"{type(exc).__name__}: {exc}"[:500]})
        return 3
    send({"ev": "ready", "gpu": asdict(gpu), "versions": versions, "startup_ms": startup})
    # "prime" (optional, once the job being timed elsewhere on this GPU has timed its last round):
    # the first launches now, so the job that comes next does not wait for them.
    line = sys.stdin.readline()
    primed: dict[str, float] = {}
    if line.strip() == "prime":
        prime(flusher, primed)
        line = sys.stdin.readline()
    if not line.strip():
        return 0  # the parent went away or shut the spare down
    if not primed:
        prime(flusher, primed)
    job = json.loads(line)
    profile: dict[str, float] = {}
    try:
        result = run_job(job, flusher, profile)
    except JobFailed as failed:
        result = failed.result
    except CudaFault as fault:  # pragma: no cover - faults are normally wrapped in JobFailed
        result = Result(verdict=Verdict.RUNTIME_ERROR, exercise=job["exercise"]["id"],
                        message=Message(codes.RUNTIME_ERROR, {"cuda_error": fault.name}))
    except cuda_errors() as exc:
        # an asynchronous fault of the learner's kernel surfacing at a later CUDA call
        result = Result(verdict=Verdict.RUNTIME_ERROR, exercise=job["exercise"]["id"],
                        message=Message(codes.RUNTIME_ERROR, {"cuda_error": cuda_error_name(exc)}))
    result.gpu, result.versions = gpu, versions
    profile.update(primed)
    if arena is not None:
        profile.update(arena.usage())
    send({"ev": "result", "result": result.to_dict(), "profile_ms": profile})
    return 0


def prime(flusher: Any, into: dict[str, float]) -> None:
    """The worker's first GPU work (device.prime_device, one L2 flush), timed into ``into``."""
    import cupy

    prime_device(into)
    flusher()
    cupy.cuda.get_current_stream().synchronize()


def preload_cublas() -> None:
    """Load the cuBLAS libraries (a CPU-only dlopen of several hundred MB) while the worker is a
    deferred spare, so that only the handle is left to create once it may touch the GPU."""
    try:
        from cupy.cuda import cublas  # noqa: F401
    except Exception:  # not installed here: start_device loads it, or reports why not
        pass


if __name__ == "__main__":
    code = main(sys.argv)
    try:
        sys.stdout.flush()
    finally:
        os._exit(code)  # skip interpreter teardown (a poisoned CUDA context can hang it)
