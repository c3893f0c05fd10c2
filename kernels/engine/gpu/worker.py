"""The GPU worker: one process, one job, then exit (run inside the GPU sandbox).

Lifecycle: start (import cupy, create the context, set small printf/malloc limits before any
launch, warm cuBLAS, allocate the L2 flush buffer) -> tell the parent "ready" -> read ONE job
from stdin -> check correctness -> time -> send the Result -> exit. A fresh process per job
means a poisoned context (illegal address), leaked memory or state left in __device__
variables never reaches the next learner.

With ``"deferred": true`` in its options it imports first, says {"ev": "loaded"} and waits for a
"warm" line on stdin before it touches the GPU (the parent starts it while another job is timed).

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

import json
import os
import sys
from dataclasses import asdict
from typing import Any

from .. import codes
from ..result import CorrectnessCase, Message, Mismatch, Result, Verdict, safe_number
from .device import set_process_limits, start_device
from .launching import (
    CudaFault,
    JobFailed,
    Kernel,
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


def run_job(job: dict[str, Any], flusher: Any) -> Result:
    exercise = job["exercise"]
    reference = load_reference(exercise["folder"], exercise["id"])
    limits = job["limits"]
    launch_s = float(limits.get("launch_s", 3.0))
    learner = Kernel(job["learner"], exercise)
    result = Result(verdict=Verdict.PASSED, message=Message(codes.PASSED), exercise=exercise["id"])
    check_correctness(job, reference, learner, result, launch_s)
    result.message = Message(codes.PASSED, {"sizes": len(exercise["correctness_sizes"])})
    if not job.get("do_timing", True) or not exercise.get("timing_sizes"):
        return result

    from .scoring import summarize
    from .timed_runs import TimingRun, time_one_size

    send({"ev": "phase", "name": "timing"})
    run = TimingRun(job=job, exercise=exercise, reference=reference, learner=learner,
                    references={name: Kernel(spec, exercise) for name, spec in job["references"].items()},
                    flusher=flusher, budget_s=float(limits.get("timing_s", 1.2)) / len(exercise["timing_sizes"]),
                    launch_limit_s=launch_s, target_rse=float(limits.get("timing_rse", 0.005)), result=result)
    per_size = [time_one_size(run, sizes, index) for index, sizes in enumerate(exercise["timing_sizes"])]
    summarize(exercise, per_size, result)
    return result


def check_correctness(job: dict[str, Any], reference: Any, learner: Kernel, result: Result, launch_s: float) -> None:
    """Every correctness size on fresh inputs; the first failure ends the job (JobFailed)."""
    import cupy
    import numpy as np

    exercise = job["exercise"]
    seed = int(job["seed"])
    tolerance = exercise.get("tolerance") or {}
    input_params = [p for p in exercise["params"] if p["role"] == "input"]
    output_param = next(p for p in exercise["params"] if p["role"] == "output")
    send({"ev": "phase", "name": "checking"})
    for index, sizes in enumerate(exercise["correctness_sizes"]):
        rng = np.random.default_rng([seed, 1, index])
        host = reference.generate_inputs(sizes, rng)
        device = {p["name"]: cupy.asarray(host[p["name"]]) for p in input_params}
        output = cupy.empty(shape_of(output_param, sizes), dtype=cupy.float32)
        poison(output)
        buffers = dict(device, **{output_param["name"]: output})
        try:
            run_learner_once(learner.launcher(buffers, sizes), "correctness", launch_s)
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
        del device, output, buffers, host


def _failed(result: Result, verdict: Verdict, message: Message) -> Result:
    result.verdict, result.message = verdict, message
    return result


def main(argv: list[str]) -> int:
    open_stream(int(argv[1]))
    options = json.loads(argv[2]) if len(argv) > 2 else {}
    set_process_limits()
    if options.get("deferred"):
        # Load now (CPU only: importing CuPy touches no GPU), create the CUDA context when told.
        import cupy  # noqa: F401

        from . import scoring, timed_runs  # noqa: F401  (timing and numpy with them)

        send({"ev": "loaded"})
        if sys.stdin.readline().strip() != "warm":
            return 0  # the parent went away or shut the spare down
    try:
        gpu, versions = start_device(options.get("printf_bytes", 64 << 10), options.get("heap_bytes", 1 << 20))
        from .timing import L2Flusher

        flusher = L2Flusher()
    except Exception as exc:  # no usable GPU in here: say so, the parent answers UNAVAILABLE
        send({"ev": "broken", "stage": "start", "error": f"{type(exc).__name__}: {exc}"[:500]})
        return 3
    send({"ev": "ready", "gpu": asdict(gpu), "versions": versions})
    line = sys.stdin.readline()
    if not line.strip():
        return 0  # the parent went away or shut the spare down
    job = json.loads(line)
    try:
        result = run_job(job, flusher)
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
    send({"ev": "result", "result": result.to_dict()})
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    try:
        sys.stdout.flush()
    finally:
        os._exit(code)  # skip interpreter teardown (a poisoned CUDA context can hang it)
