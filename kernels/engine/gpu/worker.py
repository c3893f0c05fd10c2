"""The GPU worker: one process, one job, then exit (run inside the GPU sandbox).

Lifecycle: start (import cupy, create the context, set small printf/malloc limits before any
launch, warm cuBLAS, allocate the L2 flush buffer) -> tell the parent "ready" -> read ONE job
from stdin -> check correctness -> time -> send the result -> exit. A fresh process per job
means a poisoned context (illegal address), leaked memory or state left in __device__
variables never reaches the next learner.

With ``"deferred": true`` in its options it imports first, says {"ev": "loaded"} and waits for a
"warm" line on stdin before it touches the GPU (the parent starts it while another job is timed).

Protocol: JSON lines on the file descriptor given as argv[1] (stdout is left to the learner's
device printf, which the parent captures and caps). Events:
  {"ev": "loaded"}                                   deferred start only: imported, no GPU yet
  {"ev": "ready", "gpu": {...}, "versions": {...}}
  {"ev": "phase", "name": "checking"|"timing"}
  {"ev": "watch", "limit": seconds, "what": ...}   the parent kills us if this takes too long
  {"ev": "unwatch"}
  {"ev": "result", "result": {...}}                 a dict in Result.to_dict() shape (partial)

Safety rules kept here (why, see issue 4): inputs are fresh random data from the job's secret
seed; every output is poisoned with NaN (0xFF bytes) before each launch; the float64 reference is
computed on the host only after the learner's kernel finished, and never copied to the GPU;
inputs are compared with their host copies after each checked run; timed runs get refreshed
inputs each round and some of them (and always the last) are re-checked.

Imports numpy, cupy and the standard library only.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import math
import os
import resource
import signal
import sys
import time

PROTO = None  # the protocol stream (set in main)


def send(obj: dict) -> None:
    PROTO.write(json.dumps(_clean(obj), allow_nan=False, default=_jsonable) + "\n")
    PROTO.flush()


def _clean(obj):
    """Non-finite floats become the Result format's marker strings (NaN never breaks JSON)."""
    if isinstance(obj, float):
        return _num(obj)
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def _jsonable(x):
    if hasattr(x, "item"):
        return x.item()
    raise TypeError(type(x).__name__)


def _num(x):
    """JSON-safe number (the Result format writes non-finite values as strings)."""
    f = float(x)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    return f


class CudaFault(Exception):
    """A CUDA error caused by the learner's launch; the context may be poisoned."""

    def __init__(self, name: str, at_launch: bool):
        super().__init__(name)
        self.name, self.at_launch = name, at_launch


class JobFailed(Exception):
    def __init__(self, result: dict):
        super().__init__(result.get("verdict"))
        self.result = result


def cuda_error_name(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.split(":", 1)[0].strip() or type(exc).__name__)[:80]


def _cuda_errors():
    import cupy

    errs = [cupy.cuda.driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError]
    try:
        from cupy_backends.cuda.api.runtime import CUDARuntimeError as R2  # type: ignore
        errs.append(R2)
    except Exception:
        pass
    return tuple(errs)


# ---- start-up -----------------------------------------------------------------------------

OUTPUT_FILE_LIMIT = 64 << 20  # bytes any file written in the sandbox's /tmp may reach


def set_process_limits(limits: dict) -> None:
    # Never RLIMIT_AS: CUDA reserves huge virtual ranges. Core dumps off; files small: with
    # SIGXFSZ ignored, writes past the limit fail (EFBIG) instead of killing the worker.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    for res, val in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, OUTPUT_FILE_LIMIT)):
        try:
            resource.setrlimit(res, (val, val))
        except (ValueError, OSError):
            pass


def start_device(printf_bytes: int, heap_bytes: int):
    import cupy

    rt = cupy.cuda.runtime
    cupy.cuda.Device(0).use()
    # Limits must be set before the first launch of a kernel that uses printf / malloc.
    rt.deviceSetLimit(rt.cudaLimitPrintfFifoSize, int(printf_bytes))
    rt.deviceSetLimit(rt.cudaLimitMallocHeapSize, int(heap_bytes))
    a = cupy.empty((64, 64), dtype=cupy.float32)
    rt.memset(a.data.ptr, 0, a.nbytes)
    cupy.matmul(a, a)  # creates the cuBLAS handle now, off the learner's clock
    cupy.cuda.Device().synchronize()
    return gpu_info(), versions()


def gpu_info() -> dict:
    import cupy

    rt = cupy.cuda.runtime
    props = rt.getDeviceProperties(0)
    name = props.get("name", b"")
    name = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
    info = {"name": name, "compute_capability": f"{props.get('major')}.{props.get('minor')}",
            "sm_count": int(props.get("multiProcessorCount", 0)) or None,
            "clock_mhz": None, "driver": None, "cuda_runtime": None}
    try:
        info["clock_mhz"] = int(rt.deviceGetAttribute(13, 0)) // 1000  # cudaDevAttrClockRate (kHz)
    except Exception:
        pass
    try:
        v = rt.runtimeGetVersion()
        info["cuda_runtime"] = f"{v // 1000}.{(v % 1000) // 10}"
    except Exception:
        pass
    info["driver"] = driver_version()
    return info


def driver_version():
    try:
        with open("/proc/driver/nvidia/version", encoding="ascii", errors="replace") as fh:
            for word in fh.readline().split():
                if word.count(".") >= 1 and word.replace(".", "").isdigit():
                    return word
    except OSError:
        pass
    try:
        import cupy

        v = cupy.cuda.runtime.driverGetVersion()
        return f"cuda {v // 1000}.{(v % 1000) // 10}"
    except Exception:
        return None


def versions() -> dict:
    import cupy
    import numpy

    return {"cupy": cupy.__version__, "numpy": numpy.__version__,
            "python": ".".join(map(str, sys.version_info[:3]))}


# ---- one job ------------------------------------------------------------------------------

class Kernel:
    """A loaded cubin + its launch configuration."""

    def __init__(self, spec: dict, exercise: dict):
        import cupy

        self.module = cupy.cuda.function.Module()
        self.module.load(base64.b64decode(spec["cubin_b64"]))
        self.fn = self.module.get_function(spec["name"])
        launch = spec["launch"]
        self.block = tuple(int(v) for v in launch["block"])
        self.tile = tuple(int(v) for v in launch["tile"])
        self.smem = int(launch.get("smem", 0))
        self.exercise = exercise
        if self.smem > 48 * 1024:
            cupy.cuda.driver.funcSetAttribute(
                self.fn.ptr, cupy.cuda.driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.smem)

    def grid(self, sizes: dict) -> tuple[int, int, int]:
        og = self.exercise["output_grid"]
        rows = og["rows"] if isinstance(og["rows"], int) else sizes[og["rows"]]
        cols = og["cols"] if isinstance(og["cols"], int) else sizes[og["cols"]]
        return (-(-cols // self.tile[0]), -(-rows // self.tile[1]), 1)

    def launcher(self, buffers: dict, sizes: dict):
        import numpy as np

        args = []
        for p in self.exercise["params"]:
            if p["role"] in ("input", "output"):
                args.append(buffers[p["name"]])
            elif p["role"] == "size":
                args.append(np.int32(sizes[p["name"]]))
            else:
                raise ValueError(f"unsupported parameter role {p['role']!r}")
        grid, block, smem, fn = self.grid(sizes), self.block, self.smem, self.fn
        args = tuple(args)

        def launch():
            fn(grid, block, args, shared_mem=smem)

        return launch


def shape_of(param: dict, sizes: dict) -> tuple[int, ...]:
    return tuple(int(s) if str(s).isdigit() else int(sizes[s]) for s in param["shape"])


def load_reference(folder: str, exercise_id: str):
    path = os.path.join(folder, "reference.py")
    spec = importlib.util.spec_from_file_location(f"_kernels_reference_{exercise_id}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def poison(arr) -> None:
    import cupy

    cupy.cuda.runtime.memsetAsync(arr.data.ptr, 0xFF, arr.nbytes,
                                  cupy.cuda.get_current_stream().ptr)  # 0xFFFFFFFF is a NaN


def run_learner_once(launch, what: str, limit_s: float) -> None:
    """Launch + wait under the parent's watch; CUDA errors become CudaFault."""
    import cupy

    errors = _cuda_errors()
    send({"ev": "watch", "limit": limit_s, "what": what})
    try:
        launch()
    except errors as exc:
        raise CudaFault(cuda_error_name(exc), at_launch=True) from None
    try:
        cupy.cuda.get_current_stream().synchronize()
    except errors as exc:
        raise CudaFault(cuda_error_name(exc), at_launch=False) from None
    send({"ev": "unwatch"})


def inputs_changed(dev: dict, host: dict):
    """Name and first index of an input the kernel modified, or None (bitwise comparison)."""
    import numpy as np

    for name, h in host.items():
        d = dev[name].get()
        diff = d.view(np.uint32) != h.view(np.uint32)
        if diff.any():
            return name, [int(i) for i in np.argwhere(diff)[0]]
    return None


def run_job(job: dict, flusher) -> dict:
    import cupy
    import numpy as np

    ex = job["exercise"]
    ref = load_reference(ex["folder"], ex["id"])
    seed = int(job["seed"])
    limits = job["limits"]
    launch_s = float(limits.get("launch_s", 3.0))
    tol = ex.get("tolerance") or {}
    inputs_p = [p for p in ex["params"] if p["role"] == "input"]
    outputs_p = [p for p in ex["params"] if p["role"] == "output"]
    out_p = outputs_p[0]
    learner = Kernel(job["learner"], ex)
    result = {"verdict": "PASSED", "message": {"code": "PASSED", "params": {}},
              "correctness": [], "timings": [], "speedups": [], "tiers": [], "flags": [],
              "phases_ms": {}}

    # ---- correctness ----------------------------------------------------------------------
    send({"ev": "phase", "name": "checking"})
    t0 = time.perf_counter()
    for i, sizes in enumerate(ex["correctness_sizes"]):
        rng = np.random.default_rng([seed, 1, i])
        host = ref.generate_inputs(sizes, rng)
        dev = {p["name"]: cupy.asarray(host[p["name"]]) for p in inputs_p}
        out = cupy.empty(shape_of(out_p, sizes), dtype=cupy.float32)
        poison(out)
        bufs = dict(dev, **{out_p["name"]: out})
        try:
            run_learner_once(learner.launcher(bufs, sizes), "correctness", launch_s)
        except CudaFault as f:
            result["correctness"].append({"size": sizes, "ok": False,
                                          "message": fault_message(f, sizes)})
            raise JobFailed(dict(result, verdict="RUNTIME_ERROR", message=fault_message(f, sizes)))
        got = out.get()
        changed = inputs_changed(dev, host)
        if changed:
            msg = {"code": "INPUT_MODIFIED", "params": {"size": sizes, "input": changed[0],
                                                         "index": changed[1]}}
            result["correctness"].append({"size": sizes, "ok": False, "message": msg})
            raise JobFailed(dict(result, verdict="WRONG_ANSWER", message=msg))
        mismatch = ref.check(got, host, sizes, tolerance=tol)   # host float64, after the run
        if mismatch is not None:
            mm = {"index": [int(v) for v in mismatch["index"]], "got": _num(mismatch["got"]),
                  "expected": _num(mismatch["expected"])}
            msg = {"code": "WRONG_ANSWER", "params": dict(size=sizes, **mm)}
            result["correctness"].append({"size": sizes, "ok": False, "mismatch": mm})
            raise JobFailed(dict(result, verdict="WRONG_ANSWER", message=msg))
        result["correctness"].append({"size": sizes, "ok": True})
        del dev, out, bufs, host
    result["phases_ms"]["checking"] = (time.perf_counter() - t0) * 1e3
    result["message"] = {"code": "PASSED", "params": {"sizes": len(ex["correctness_sizes"])}}

    if not job.get("do_timing", True) or not ex.get("timing_sizes"):
        return result

    # ---- timing ---------------------------------------------------------------------------
    send({"ev": "phase", "name": "timing"})
    t0 = time.perf_counter()
    from kernels.engine.gpu import timing as T

    refs = {name: Kernel(spec, ex) for name, spec in job["references"].items()}
    budget = float(limits.get("timing_s", 1.2)) / len(ex["timing_sizes"])
    target_rse = float(limits.get("timing_rse", 0.005))
    per_size = []
    for si, sizes in enumerate(ex["timing_sizes"]):
        per_size.append(time_one_size(job, ex, ref, learner, refs, sizes, si, budget, flusher,
                                      launch_s, result, T, target_rse))
    result["phases_ms"]["timing"] = (time.perf_counter() - t0) * 1e3
    summarize(ex, job, per_size, result, T)
    return result


def time_one_size(job, ex, ref, learner, refs, sizes, si, budget, flusher, launch_s, result, T, target_rse=0.005):
    import cupy
    import numpy as np

    seed = int(job["seed"])
    tol = ex.get("tolerance") or {}
    inputs_p = [p for p in ex["params"] if p["role"] == "input"]
    out_p = [p for p in ex["params"] if p["role"] == "output"][0]
    out_shape = shape_of(out_p, sizes)
    secret = np.random.default_rng([seed, 2, si])
    n_var = 3
    pool_host = [ref.generate_inputs(sizes, np.random.default_rng([seed, 3, si, v]))
                 for v in range(n_var)]
    pool_dev = [{k: cupy.asarray(v) for k, v in h.items()} for h in pool_host]
    # references and the baseline run on inputs the learner never sees, so no answer to the
    # learner's inputs is ever in GPU memory while the learner's kernel runs
    ref_inputs = {k: cupy.asarray(v) for k, v in
                  ref.generate_inputs(sizes, np.random.default_rng([seed, 5, si])).items()}

    # the learner's live buffers: inputs are refreshed from the pool before every round
    live = {p["name"]: cupy.empty_like(pool_dev[0][p["name"]]) for p in inputs_p}
    out_l = cupy.empty(out_shape, dtype=cupy.float32)
    launches = {"learner": learner.launcher(dict(live, **{out_p["name"]: out_l}), sizes)}
    # references get their own buffers (never the learner's)
    for name, k in refs.items():
        bufs = {p["name"]: ref_inputs[p["name"]] for p in inputs_p}
        bufs[out_p["name"]] = cupy.empty(out_shape, dtype=cupy.float32)
        launches[name] = k.launcher(bufs, sizes)
    launches["baseline"] = baseline_launcher(ex, job, sizes, si, ref_inputs, out_shape)

    state = {"combo": None, "prev_first": -1, "to_check": []}
    names_in = [p["name"] for p in inputs_p]
    stream = cupy.cuda.get_current_stream()

    round_limit = len(launches) * launch_s + 2.0  # every kernel of a round within its limit

    def before_round(r):
        send({"ev": "watch", "limit": round_limit, "what": "timing"})
        # a new combination of pool variants; the first input always changes, so a kernel that
        # replays an earlier answer (or one cached by pointer) writes a wrong one
        first = (state["prev_first"] + 1 + int(secret.integers(n_var - 1))) % n_var
        combo = [first] + [int(secret.integers(n_var)) for _ in names_in[1:]]
        state["prev_first"] = first
        for name, v in zip(names_in, combo):
            src = pool_dev[v][name]
            cupy.cuda.runtime.memcpyAsync(live[name].data.ptr, src.data.ptr, src.nbytes, 3, stream.ptr)
        poison(out_l)
        state["combo"] = combo

    def after_round(r):
        send({"ev": "unwatch"})
        if r >= 0 and len(state["to_check"]) < 3 and secret.random() < 0.2:
            state["to_check"].append((r, list(state["combo"]), out_l.get()))

    errors = _cuda_errors()
    try:
        stats = T.measure(launches, max_seconds=budget, before_round=before_round,
                          after_round=after_round, flusher=flusher, target_rse=target_rse,
                          seed=int(secret.integers(1 << 31)))
        last = (-1, list(state["combo"]), out_l.get())
        live_host_changed = inputs_changed(live, {n: pool_host[v][n] for n, v in zip(names_in, state["combo"])})
    except errors as exc:
        f = CudaFault(cuda_error_name(exc), at_launch=False)
        raise JobFailed(dict(result, verdict="RUNTIME_ERROR", message=fault_message(f, sizes)))

    if live_host_changed:
        msg = {"code": "INPUT_MODIFIED", "params": {"size": sizes, "input": live_host_changed[0],
                                                     "index": live_host_changed[1]}}
        raise JobFailed(dict(result, verdict="WRONG_ANSWER", message=msg))
    check_rng = np.random.default_rng([seed, 4, si])
    for r, combo, got in state["to_check"] + [last]:
        host = {n: pool_host[v][n] for n, v in zip(names_in, combo)}
        mismatch = ref.check(got, host, sizes, tolerance=tol, sample=check_rng)
        if mismatch is not None:
            mm = {"index": [int(v) for v in mismatch["index"]], "got": _num(mismatch["got"]),
                  "expected": _num(mismatch["expected"])}
            msg = {"code": "WRONG_ANSWER_TIMED_RUN", "params": dict(size=sizes, **mm)}
            result["correctness"].append({"size": sizes, "ok": False, "mismatch": mm, "message": msg})
            raise JobFailed(dict(result, verdict="WRONG_ANSWER", message=msg))
    return {"sizes": sizes, "stats": stats, "checked_rounds": len(state["to_check"]) + 1,
            "work": float(job["work_amounts"][si])}


def baseline_launcher(ex, job, sizes, si, inputs_dev, out_shape):
    """The context baseline: cuBLAS SGEMM (cupy.matmul, float32, TF32 off) or a
    device-to-device copy moving the same bytes as the exercise (half read, half written)."""
    import cupy

    kind = ex["baseline"]
    if kind == "cublas_sgemm":
        a, b = (inputs_dev[p["name"]] for p in ex["params"] if p["role"] == "input")
        c = cupy.empty(out_shape, dtype=cupy.float32)
        return lambda: cupy.matmul(a, b, out=c)
    if kind == "d2d_copy":
        nbytes = max(4, int(job["work_amounts"][si]) // 2) // 4 * 4
        src = cupy.empty(nbytes, dtype=cupy.uint8)
        dst = cupy.empty(nbytes, dtype=cupy.uint8)
        cupy.cuda.runtime.memset(src.data.ptr, 1, nbytes)
        rt = cupy.cuda.runtime

        def copy():
            rt.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes, 3, cupy.cuda.get_current_stream().ptr)

        return copy
    raise ValueError(f"unknown baseline {kind!r}")


def work_rate(work: float, ms: float, unit: str) -> float:
    if not ms or ms <= 0:
        return float("nan")
    if unit == "TFLOP/s":
        return work / (ms * 1e-3) / 1e12
    if unit == "GB/s":
        return work / (ms * 1e-3) / 1e9
    return work / (ms * 1e-3)


# A learner faster than this share of the baseline's work rate is flagged for review: cuBLAS
# SGEMM runs near the float32 FMA peak (a hand kernel beating it by 1.3x is not credible), and
# nothing streams memory much faster than a device-to-device copy.
IMPLAUSIBLE = {"cublas_sgemm": 1.3, "d2d_copy": 1.15}


def summarize(ex, job, per_size, result, T) -> None:
    unit = ex["work"]["metric"]
    for entry in per_size:
        sizes, stats = entry["sizes"], entry["stats"]
        for name, st in stats.items():
            result["timings"].append({"kernel": name, "size": sizes, "median_ms": st.median_ms,
                                      "spread_ms": st.spread_ms,
                                      "work_rate": work_rate(entry["work"], st.median_ms, unit),
                                      "unit": unit, "samples": st.n})
        for against in ("naive", "tiled", "baseline"):
            if against in stats:
                v, lo, hi = T.speedup(stats[against], stats["learner"])
                result["speedups"].append({"against": against, "size": sizes, "value": v,
                                           "ci_low": lo, "ci_high": hi, "confidence": 0.95})
        rse = max(s.rse for s in stats.values())
        if rse > 0.03 and math.isfinite(rse):
            result["flags"].append({"code": "NOISY_TIMING", "params": {"rse": rse, "size": sizes}})
        lim = IMPLAUSIBLE.get(ex["baseline"])
        if lim is not None and "baseline" in stats:
            lr = work_rate(entry["work"], stats["learner"].median_ms, unit)
            br = work_rate(entry["work"], stats["baseline"].median_ms, unit)
            if lr > lim * br:
                result["flags"].append({"code": "IMPLAUSIBLY_FAST", "params": {
                    "kernel": "learner", "work_rate": lr, "unit": unit, "limit": lim * br,
                    "size": sizes}})
    largest = per_size[-1]["sizes"]
    tier_xp = 0
    for t in ex.get("tiers", []):
        sp = next((s for s in result["speedups"] if s["against"] == t["against"]
                   and s["size"] == largest), None)
        met = bool(sp is not None and sp["ci_low"] >= float(t["speedup"]))
        tier_xp += int(t["xp"]) if met else 0
        result["tiers"].append({"id": t["id"], "against": t["against"],
                                "threshold": float(t["speedup"]), "met": met, "xp": int(t["xp"])})
    pass_xp = int(ex.get("pass_xp", 0))
    result["xp"] = {"pass_xp": pass_xp, "tier_xp": tier_xp, "total": pass_xp + tier_xp}


def fault_message(f: CudaFault, sizes: dict) -> dict:
    if "ILLEGAL_ADDRESS" in f.name.upper() or "ILLEGALADDRESS" in f.name.upper():
        return {"code": "RUNTIME_ILLEGAL_ADDRESS", "params": {"size": sizes, "cuda_error": f.name}}
    if f.at_launch:
        return {"code": "RUNTIME_LAUNCH_FAILED", "params": {"size": sizes, "cuda_error": f.name}}
    return {"code": "RUNTIME_ERROR", "params": {"size": sizes, "cuda_error": f.name}}


# ---- main ---------------------------------------------------------------------------------

def main(argv: list[str]) -> int:
    global PROTO
    PROTO = os.fdopen(int(argv[1]), "w", buffering=1, encoding="utf-8")
    opts = json.loads(argv[2]) if len(argv) > 2 else {}
    set_process_limits(opts)
    if opts.get("deferred"):
        # Load now (CPU only: importing CuPy touches no GPU), create the CUDA context when told.
        import cupy  # noqa: F401

        from kernels.engine.gpu import timing  # noqa: F401

        send({"ev": "loaded"})
        if sys.stdin.readline().strip() != "warm":
            return 0  # the parent went away or shut the spare down
    try:
        gpu, vers = start_device(opts.get("printf_bytes", 64 << 10), opts.get("heap_bytes", 1 << 20))
        from kernels.engine.gpu.timing import L2Flusher

        flusher = L2Flusher()
    except Exception as exc:  # no usable GPU in here: say so, the parent answers UNAVAILABLE
        send({"ev": "broken", "stage": "start", "error": f"{type(exc).__name__}: {exc}"[:500]})
        return 3
    send({"ev": "ready", "gpu": gpu, "versions": vers})
    line = sys.stdin.readline()
    if not line.strip():
        return 0  # the parent went away or shut the spare down
    job = json.loads(line)
    try:
        result = run_job(job, flusher)
    except JobFailed as jf:
        result = jf.result
    except CudaFault as f:  # pragma: no cover - faults are normally wrapped in JobFailed
        result = {"verdict": "RUNTIME_ERROR", "message": {"code": "RUNTIME_ERROR",
                                                         "params": {"cuda_error": f.name}}}
    except _cuda_errors() as exc:
        # an asynchronous fault of the learner's kernel surfacing at a later CUDA call
        result = {"verdict": "RUNTIME_ERROR", "message": {"code": "RUNTIME_ERROR",
                                                         "params": {"cuda_error": cuda_error_name(exc)}}}
    result["gpu"], result["versions"] = gpu, vers
    send({"ev": "result", "result": result})
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    try:
        sys.stdout.flush()
    finally:
        os._exit(code)  # skip interpreter teardown (a poisoned CUDA context can hang it)
