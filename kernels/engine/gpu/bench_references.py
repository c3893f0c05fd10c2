"""Reference numbers for the lessons: time every exercise's naive and tiled references and its
context baseline at the exercise's timing sizes, on this server's GPU, and write
kernels/results/<gpu-slug>-<date>-references.json (contract D).

    python -m kernels.engine.gpu.bench_references [--out DIR] [--seconds S]

It goes through the same sandboxed worker and interleaved timing as a grading (the tiled
reference is submitted as the learner's kernel), so the numbers are what learners are compared
against. It also grades one fast correct solution per exercise and prints how far it gets
(speedups with confidence intervals, tiers met): proof that the tiers can be reached.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..exercise import Exercise, list_exercises, load_exercise
from ..result import GpuInfo

if TYPE_CHECKING:
    from ..compiler import CompiledKernel
    from ..launch import LaunchPlan

LABELS = {
    "col_sum": {"naive": "naive (one block per column, strided reads)",
                "tiled": "tiled (32 columns per block, coalesced, shared tile)"},
    "row_sum": {"naive": "naive (one thread per row)",
                "tiled": "tiled (one block per row, coalesced, shuffles)"},
    "transpose": {"naive": "naive (direct, strided reads)",
                  "tiled": "tiled (32x32 shared tile, padded)"},
    "gemm": {"naive": "naive (one thread per output)", "tiled": "tiled (32x32 shared tiles)"},
    "gemm_fast": {"naive": "naive (one thread per output)", "tiled": "tiled (32x32 shared tiles)"},
    "hgemm": {"naive": "naive WMMA (one warp per 16x16 tile)", "tiled": "tiled WMMA (64x64 block tiles)"},
}
BASELINE_LABELS = {"cublas_sgemm": "cuBLAS SGEMM (cupy.matmul, float32)",
                   "cublas_hgemm": "cuBLAS HGEMM (cublasGemmEx, float16 in, float32 out)",
                   "d2d_copy": "device-to-device copy of the same bytes"}
FAST = {"col_sum": "float4_columns.cu", "row_sum": "float4_warp_per_row.cu",
        "transpose": "tile64.cu", "gemm": "regtile_64x64.cu", "gemm_fast": "regtile_128x128.cu",
        "hgemm": "wmma_128x128_cp_async.cu"}
LAUNCH_RE = re.compile(r"^//\s*launch:\s*(\{.*\})", re.M)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "gpu"


def _compile(ex: Exercise, path: Path) -> CompiledKernel:
    from ..compiler import get_compiler
    from ..policy import check_source

    return get_compiler().compile(check_source(path.read_text(encoding="utf-8")), ex.kernel,
                                  headers=ex.headers)


def _launch(ex: Exercise, path: Path) -> LaunchPlan:
    from ..launch import validate_launch

    m = LAUNCH_RE.search(path.read_text(encoding="utf-8"))
    return validate_launch(json.loads(m.group(1)) if m else ex.launch_defaults.as_request(), ex)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "results"))
    ap.add_argument("--seconds", type=float, default=4.0, help="timing budget per exercise")
    ap.add_argument("--exercises", nargs="*", default=None)
    ap.add_argument("--no-fast", action="store_true", help="skip grading the fast solutions")
    args = ap.parse_args(argv)

    from ..compiler import nvrtc_version
    from . import gpu_available
    from .runner import GpuRunner, run_job
    from .worker_process import Limits

    if not gpu_available():
        print("no GPU here", file=sys.stderr)
        return 2
    runner = GpuRunner(Limits(timing_s=args.seconds, job_s=300.0))
    entries: list[dict[str, Any]] = []
    gpu: GpuInfo | None = None
    versions: dict[str, str] = {}
    fast_rows = []
    try:
        for ex_id in args.exercises or list_exercises():
            ex = load_exercise(ex_id)
            tiled = ex.path(ex.references["tiled"].file)
            compiled = {n: _compile(ex, ex.path(ex.references[n].file)) for n in ("naive", "tiled")}
            res = run_job(ex, compiled["tiled"], _launch(ex, tiled), None, runner=runner)
            if res.verdict.value != "PASSED":
                print(f"{ex_id}: reference run failed: {res.verdict.value} {res.message}", file=sys.stderr)
                return 1
            gpu, versions = res.gpu, res.versions
            for sizes in ex.timing_sizes:
                rows = {t.kernel: t for t in res.timings if t.size == dict(sizes)}
                base = rows["baseline"]
                for kernel in ("naive", "tiled", "baseline"):
                    t = rows[kernel]
                    # a PASSED run timed every kernel at every timing size
                    assert t.work_rate is not None and base.work_rate
                    rs = compiled[kernel].resources if kernel in compiled else {}
                    entries.append({
                        "exercise": ex_id, "kernel": kernel,
                        "label": LABELS.get(ex_id, {}).get(kernel) or BASELINE_LABELS.get(ex.baseline, kernel),
                        "size": dict(sizes), "median_ms": round(t.median_ms, 5),
                        "spread_ms": round(t.spread_ms, 5), "work_rate": round(t.work_rate, 3),
                        "unit": t.unit, "samples": t.samples,
                        "registers": rs.get("registers"), "shared_bytes": rs.get("shared_bytes"),
                        "vs_baseline": round(t.work_rate / base.work_rate, 4),
                    })
            if not args.no_fast:
                path = ex.folder / "solutions" / "correct" / FAST[ex_id]
                fr = run_job(ex, _compile(ex, path), _launch(ex, path), None, runner=runner)
                fast_rows.append((ex_id, path.name, fr))
    finally:
        runner.shutdown()
    if gpu is None:
        print("no exercise was run", file=sys.stderr)
        return 1

    today = _dt.date.today().isoformat()
    doc = {"schema": "kernels-results/1", "kind": "references", "date": today,
           "gpu": {"name": gpu.name, "compute_capability": gpu.compute_capability,
                   "sm_count": gpu.sm_count, "clock_mhz": gpu.clock_mhz, "driver": gpu.driver,
                   "cuda_runtime": gpu.cuda_runtime, "nvrtc": nvrtc_version(),
                   "cupy": versions.get("cupy")},
           "method": ("CUDA events, kernels interleaved round by round in random order, L2 "
                      "flushed before every timed call, random inputs in the exercise's types (float32; "
                      "float16 A and B for hgemm); median of the "
                      "rounds, spread = half the interquartile range; work rate = work / median."),
           "entries": entries}
    os.makedirs(args.out, exist_ok=True)
    out_path = os.path.join(args.out, f"{slug(gpu.name or 'gpu')}-{today}-references.json")
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, ensure_ascii=False)
        fh.write("\n")

    print(f"GPU: {gpu.name} (sm {gpu.compute_capability}, {gpu.sm_count} SMs, driver {gpu.driver}, "
          f"CUDA runtime {gpu.cuda_runtime}, NVRTC {nvrtc_version()}, CuPy {versions.get('cupy')})")
    print(f"{'exercise':10} {'kernel':9} {'size':>16} {'median ms':>10} {'spread':>8} {'rate':>10} {'vs base':>8} {'regs':>5}")
    for e in entries:
        size = "x".join(str(v) for v in e["size"].values())
        print(f"{e['exercise']:10} {e['kernel']:9} {size:>16} {e['median_ms']:10.4f} {e['spread_ms']:8.4f} "
              f"{e['work_rate']:10.2f} {e['vs_baseline']:8.3f} {str(e['registers'] or ''):>5}  {e['unit']}")
    if fast_rows:
        print("\nfast correct solutions (largest timing size): speedup [95% CI]")
        for ex_id, name, fr in fast_rows:
            if fr.verdict.value != "PASSED":
                print(f"{ex_id:10} {name:26} {fr.verdict.value} {fr.message.code} {fr.message.params}")
                continue
            big = dict(load_exercise(ex_id).largest_timing_size)
            sp = {s.against: s for s in fr.speedups if s.size == big}
            lr = next(t for t in fr.timings if t.kernel == "learner" and t.size == big)
            cells = "  ".join(f"{k} {s.value:.2f} [{s.ci_low:.2f},{s.ci_high:.2f}]" for k, s in sp.items())
            met = ",".join(t.id for t in fr.tiers if t.met) or "-"
            print(f"{ex_id:10} {name:26} {lr.work_rate:8.2f} {lr.unit:8} {cells}  tiers: {met}")
    print(f"\nwrote {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
