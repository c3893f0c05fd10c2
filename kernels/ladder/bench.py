"""Check and time every rung of the GEMM ladder against cuBLAS; print a table, write results JSON.

    python -m kernels.ladder.bench [--sizes 1024,2048,4096,8192] [--rungs 05,12] [--out FILE]

Each rung runs in its own child process (a faulting kernel poisons its CUDA context; the others
still get measured). A child compiles its rung, checks it at the odd sizes and at every benchmark
size against a float64 reference (kernels/ladder/check.py), then times it interleaved with the
matching cuBLAS call: SGEMM (cupy.matmul on float32, TF32 off) for f32 rungs, HGEMM (cupy.matmul
on float16) for f16 rungs. Results follow contract D (kind "ladder").

cuBLAS's timing window opens after a GPU-side wait (the engine's ``GpuHold``, kernels/engine/gpu/
hold.py, which the grader's cuBLAS baselines use too): a plain cupy.matmul between the timing
events can also time its host dispatch, which the L2 flush before the start event hides for a rung's
launch but not always for cuBLAS's longer one (the H100 ladder run of 2026-11-25 timed
HGEMM at 1024^3 at 64 us; after the wait it takes 8 us). While the GPU waits, the host finishes
queueing the start event and cuBLAS's kernels, so the window holds GPU time only. A CUDA graph
would do the same, but CuPy refuses cuBLAS calls during stream capture; timing many calls back to
back does not: at 1024^3 the host issues one HGEMM every 16 us, twice the GPU's time for it.
Entries say so with ``baseline_timing``.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from kernels.engine.gpu.device import smi_query
from kernels.engine.gpu.hold import hold_compiled_here

from . import rungs as rung_mod
from .clocks import ClockWatch

ODD_SIZES = [(1, 1, 1), (17, 17, 17), (33, 33, 33), (127, 127, 127), (129, 129, 129), (100, 257, 65),
             # multiples of 8 ending in partial tiles: the 16-byte, cp.async and TMA paths at the edges
             (264, 136, 200), (100, 264, 72)]
DEFAULT_SIZES = [1024, 2048, 4096, 8192]
BASELINE = {"f32": "cublas_sgemm", "f16": "cublas_hgemm"}
RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"


def _timing() -> tuple[Callable[..., dict[str, Any]], str]:
    """The engine's timing (contract C): the ladder is timed exactly like graded kernels."""
    from kernels.engine.gpu.timing import measure
    return measure, "kernels.engine.gpu.timing"


def _median_ms(stats: Any) -> float:
    for attr in ("median_ms", "median"):
        if hasattr(stats, attr):
            return float(getattr(stats, attr))
    return float(stats["median_ms"])


def _spread_ms(stats: Any) -> float:
    for attr in ("spread_ms", "iqr_ms", "spread"):
        if hasattr(stats, attr):
            return float(getattr(stats, attr))
    return float(stats.get("spread_ms", 0.0)) if isinstance(stats, dict) else 0.0


# ----------------------------------------------------------------------------------------- child
def run_child(stem: str, sizes: list[int], max_seconds: float, directory: Path = rung_mod.LADDER_DIR) -> dict[str, Any]:
    import cupy as cp

    from . import runner
    from .check import check_gemm

    rung = next(r for r in rung_mod.discover(directory) if r.stem == stem)
    loaded = runner.load(rung)
    measure, timing_source = _timing()
    out: dict[str, Any] = {"stem": stem, "dtype": rung.dtype, "title": rung.title, "registers": loaded.registers,
           "static_smem": loaded.static_smem, "dynamic_smem": rung.smem, "local_bytes": loaded.local_bytes,
           "timing": timing_source, "odd": [], "sizes": []}

    for i, (M, N, K) in enumerate(ODD_SIZES):
        A, B, A64, B64 = runner.make_inputs(M, N, K, rung.dtype, seed=1000 + i)
        C = runner.poisoned_output(M, N)
        loaded.launch(A, B, C, M, N, K)
        res = check_gemm(cp, C, A64, B64, rung.dtype)
        out["odd"].append({"M": M, "N": N, "K": K, "ok": res.ok, "summary": res.summary()})

    for n in sizes:
        M = N = K = n
        A, B, A64, B64 = runner.make_inputs(M, N, K, rung.dtype, seed=n)
        C = runner.poisoned_output(M, N)
        loaded.launch(A, B, C, M, N, K)
        res = check_gemm(cp, C, A64, B64, rung.dtype)
        del A64, B64
        entry = {"n": n, "ok": res.ok, "summary": res.summary(), "worst_ratio": res.worst_ratio}
        if res.ok:
            Cb = cp.empty((M, N), dtype=A.dtype)      # cuBLAS writes C in the input type
            hold = hold_compiled_here()
            with ClockWatch(cp.cuda.Device().id) as watch:   # SM clock and power during the timing
                # the launches run inside measure(), before this iteration's arrays are deleted;
                # partial binds this iteration's arrays now, so that is what they launch on
                stats = measure({stem: partial(loaded.launch, A, B, C, M, N, K),
                                 "baseline": partial(cp.matmul, A, B, out=Cb)},
                                flush_l2=True, max_seconds=max_seconds, before_window={"baseline": hold})
            entry.update(median_ms=_median_ms(stats[stem]), spread_ms=_spread_ms(stats[stem]),
                         baseline_ms=_median_ms(stats["baseline"]),
                         baseline_spread_ms=_spread_ms(stats["baseline"]), clocks=watch.summary())
            del Cb
        out["sizes"].append(entry)
        del A, B, C
        cp.get_default_memory_pool().free_all_blocks()
    return out


# ---------------------------------------------------------------------------------------- parent
def gpu_info() -> dict[str, Any]:
    import cupy as cp
    from cupy.cuda import nvrtc
    rt = cp.cuda.runtime
    dev = cp.cuda.Device()
    props = rt.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    def ver(v: int) -> str:
        return f"{v // 1000}.{(v % 1000) // 10}"
    info = {"name": name, "compute_capability": f"{props['major']}.{props['minor']}",
            "sm_count": int(props["multiProcessorCount"]),
            "clock_mhz": rt.deviceGetAttribute(rt.cudaDevAttrClockRate, dev.id) // 1000,
            "driver": ver(rt.driverGetVersion()), "cuda_runtime": ver(rt.runtimeGetVersion()),
            "nvrtc": ".".join(map(str, nvrtc.getVersion())), "cupy": cp.__version__}
    smi = smi_query(("driver_version", "clocks.sm", "clocks.max.sm", "clocks.mem"))
    if smi:  # current clocks and the driver's own version string, when nvidia-smi is there
        first = smi[0]
        try:
            info.update(driver=first["driver_version"], clock_sm_now_mhz=int(first["clocks.sm"]),
                        clock_max_mhz=int(first["clocks.max.sm"]), clock_mem_mhz=int(first["clocks.mem"]))
        except ValueError:  # "[N/A]" on a GPU that does not report a clock
            pass
    return info


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def build_results(info: dict[str, Any], children: list[dict[str, Any]], date: str) -> dict[str, Any]:
    entries = []
    baselines: dict[tuple[str, int], list[float]] = {}
    for ch in children:
        if "error" in ch:
            continue
        for s in ch["sizes"]:
            if "median_ms" not in s:
                continue
            n = s["n"]
            flops = 2.0 * n * n * n
            baselines.setdefault((ch["dtype"], n), []).append(s["baseline_ms"])
            entries.append({
                "exercise": "gemm", "kernel": ch["stem"], "label": ch["title"], "dtype": ch["dtype"],
                "size": {"M": n, "N": n, "K": n}, "median_ms": round(s["median_ms"], 5),
                "spread_ms": round(s["spread_ms"], 5), "work_rate": round(flops / s["median_ms"] / 1e9, 3),
                "unit": "TFLOP/s", "registers": ch["registers"],
                "shared_bytes": ch["static_smem"] + ch["dynamic_smem"],
                "baseline": BASELINE[ch["dtype"]], "vs_baseline": round(s["baseline_ms"] / s["median_ms"], 4),
                "baseline_timing": "gpu_hold",
                "correct": True, "max_error_vs_bound": s["worst_ratio"], "clocks": s.get("clocks")})
    for (dtype, n), times in sorted(baselines.items()):
        times.sort()
        med = times[len(times) // 2]
        entries.append({"exercise": "gemm", "kernel": BASELINE[dtype],
                        "label": {"f32": "cuBLAS SGEMM (cupy.matmul, float32, TF32 off)",
                                  "f16": "cuBLAS HGEMM (cupy.matmul, float16 in and out)"}[dtype],
                        "dtype": dtype, "size": {"M": n, "N": n, "K": n}, "median_ms": round(med, 5),
                        "spread_ms": round(times[-1] - times[0], 5),
                        "work_rate": round(2.0 * n ** 3 / med / 1e9, 3), "unit": "TFLOP/s",
                        "registers": None, "shared_bytes": None, "vs_baseline": 1.0, "baseline_timing": "gpu_hold",
                        "note": f"median of {len(times)} runs, each interleaved with one rung"})
    watched = [e["clocks"] for e in entries if e.get("clocks")]
    # None when NVML was not there to say; otherwise whether every timing window kept its clock.
    clocks_held = all(c["held"] for c in watched) if watched else None
    return {"schema": "kernels-results/1", "kind": "ladder", "date": date, "gpu": info, "clocks_held": clocks_held,
            "entries": entries}


def format_table(info: dict[str, Any], children: list[dict[str, Any]]) -> str:
    lines = [f"GPU: {info['name']} (cc {info['compute_capability']}, {info['sm_count']} SMs, "
             f"clock {info.get('clock_sm_now_mhz', '?')}/{info.get('clock_max_mhz', info['clock_mhz'])} MHz now/max, "
             f"mem clock {info.get('clock_mem_mhz', '?')} MHz) driver {info['driver']}, CUDA runtime "
             f"{info['cuda_runtime']}, NVRTC {info['nvrtc']}, CuPy {info['cupy']}",
             f"{'rung':28} {'n':>5} {'ms':>9} {'TFLOP/s':>8} {'cuBLAS':>8} {'%cuBLAS':>8} {'regs':>5} {'smem':>7}  check"]
    for ch in children:
        if "error" in ch:
            lines.append(f"{ch['stem']:28} ERROR: {ch['error'][-300:]}")
            continue
        odd_bad = [o for o in ch["odd"] if not o["ok"]]
        odd = "odd sizes ok" if not odd_bad else f"odd sizes FAIL {odd_bad[0]}"
        smem = ch["static_smem"] + ch["dynamic_smem"]
        for s in ch["sizes"]:
            n = s["n"]
            if "median_ms" in s:
                tf = 2.0 * n ** 3 / s["median_ms"] / 1e9
                btf = 2.0 * n ** 3 / s["baseline_ms"] / 1e9
                clk = s.get("clocks")
                clock = (f"SM {clk['sm_mhz_min']}-{clk['sm_mhz_max']} MHz {clk['power_w_mean']:.0f} W"
                         f"{'' if clk['held'] else ' CLOCKS FELL'}; ") if clk else ""
                lines.append(f"{ch['stem']:28} {n:5d} {s['median_ms']:9.3f} {tf:8.2f} {btf:8.2f} "
                             f"{100 * s['baseline_ms'] / s['median_ms']:7.1f}% {ch['registers']:5d} {smem:7d}  "
                             f"{clock}{s['summary']}; {odd}")
            else:
                lines.append(f"{ch['stem']:28} {n:5d} {'-':>9} {'-':>8} {'-':>8} {'-':>8} {ch['registers']:5d} "
                             f"{smem:7d}  {s['summary']}; {odd}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    ap.add_argument("--rungs", default="", help="comma-separated rung numbers or stems (default: all)")
    ap.add_argument("--out", default="", help="results JSON path (default kernels/results/<gpu>-<date>-ladder.json)")
    ap.add_argument("--max-seconds", type=float, default=1.0, help="timing budget per rung and size")
    ap.add_argument("--child-timeout", type=float, default=300.0)
    ap.add_argument("--dir", default=str(rung_mod.LADDER_DIR),
                    help="folder of rung files (default: the ladder; experiments/ holds variants)")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]

    if args.child:
        print("CHILD-RESULT " + json.dumps(run_child(args.child, sizes, args.max_seconds, Path(args.dir))), flush=True)
        return 0

    wanted = [w.strip() for w in args.rungs.split(",") if w.strip()]
    chosen = [r for r in rung_mod.discover(Path(args.dir))
              if not wanted or any(r.stem == w or r.stem.startswith(w.zfill(2) + "_") for w in wanted)]
    info = gpu_info()
    children: list[dict[str, Any]] = []
    for r in chosen:
        cmd = [sys.executable, "-m", "kernels.ladder.bench", "--child", r.stem, "--sizes", args.sizes,
               "--max-seconds", str(args.max_seconds), "--dir", args.dir]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.child_timeout,
                               cwd=Path(__file__).resolve().parents[2])
            line = next((row for row in p.stdout.splitlines() if row.startswith("CHILD-RESULT ")), None)
            if line is None:
                children.append({"stem": r.stem, "error": f"exit {p.returncode}: {p.stderr.strip()}"})
            else:
                children.append(json.loads(line[len("CHILD-RESULT "):]))
        except subprocess.TimeoutExpired:
            children.append({"stem": r.stem, "error": f"timed out after {args.child_timeout} s"})
        print(format_table(info, children[-1:]).split("\n", 2)[-1], flush=True)   # progress, row by row

    date = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d")
    results = build_results(info, children, date)
    out = Path(args.out) if args.out else RESULTS_DIR / f"{slug(info['name'])}-{date}-ladder.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print()
    print(format_table(info, children))
    print(f"timing: {next((c['timing'] for c in children if 'timing' in c), '?')}; results: {out}")
    if results["clocks_held"] is False:
        print("CLOCKS FELL during at least one timing window: repeat the run (see the rows marked above)")
    bad = [c["stem"] for c in children if "error" in c or any(not o["ok"] for o in c["odd"])
           or any(not s["ok"] for s in c["sizes"])]
    if bad:
        print("NOT CORRECT: " + ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
