"""Grading benchmark: turnaround from source in to verdict out, and the stability of speedups.

    python -m kernels.engine.gpu.bench_grading [--n 8]

Prints, with the GPU's name:
- turnaround of grade() for the gemm exercise (timing at 1024 and 2048) with a COLD compile
  (a fresh comment makes every source new to the cubin cache) and with a CACHED compile:
  median and p95. Each grading starts once the spare worker is warm, the server's steady state
  between submissions (the spare warms while the GPU is idle, after each job). Then QUEUED:
  cached compiles graded back to back, as when jobs wait in a queue (each job waits for the
  spare that began warming when the previous one was timed).
- per case, the median of where the GPU stage's time went (ms): the runner's waits for the lock
  and the spare, the job in the worker, reaping the worker; the worker's start-up (imports, CUDA
  context, cuBLAS, flush buffer) and its stages (checking; per timing size setup, timed rounds
  and their number, waiting for the re-checks; the summary).
- the speedup vs tiled over five gradings of one kernel: values, and their spread
  ((max - min) / median). Targets: median turnaround < 1 s cold, spread < 3 %.
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..exercise import load_exercise

KERNELS = Path(__file__).resolve().parents[2]
LAUNCH_RE = re.compile(r"^//\s*launch:\s*(\{.*\})", re.M)


def _wait_spare() -> None:
    from .runner import get_runner

    r = get_runner()
    r.warm_in_background()
    if r._warming is not None:
        r._warming.join(120)


def _p95(xs: Iterable[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def _flat(profile: dict[str, object], prefix: str = "") -> dict[str, float]:
    """The runner's last_profile as one level of numbers ("worker.size1_rounds_ms": ...)."""
    flat: dict[str, float] = {}
    for key, value in profile.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        elif isinstance(value, int | float):
            flat[f"{prefix}{key}"] = float(value)
    return flat


def _launch_line(source: str) -> str:
    found = LAUNCH_RE.search(source)
    if found is None:
        raise SystemExit("the kernel file has no '// launch: {...}' line")
    return found.group(1)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=8, help="gradings per turnaround case")
    ap.add_argument("--exercise", default="gemm")
    ap.add_argument("--kernel", default="solutions/correct/regtile_64x64.cu")
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    args = ap.parse_args(argv)

    from .. import grade
    from . import gpu_available

    if not gpu_available():
        print("no GPU here", file=sys.stderr)
        return 2
    ex = load_exercise(args.exercise)
    src_path = KERNELS / args.exercise / "tiled.cu"
    src = src_path.read_text()
    launch = json.loads(_launch_line(src))

    first = grade(args.exercise, src, launch)  # starts the compile worker and the GPU spare
    gpu = first.gpu.name if first.gpu else "?"
    print(f"GPU: {gpu}   exercise: {args.exercise}  timing sizes: "
          f"{[tuple(s.values()) for s in ex.timing_sizes]}")

    from .runner import get_runner

    cases, profiles = {}, {}
    for case in ("cold", "cached", "queued"):
        times, verdicts, phases, profs = [], [], [], []
        for _ in range(args.n):
            text = src + (f"\n// nonce {secrets.token_hex(8)}\n" if case == "cold" else "")
            if case != "queued":
                _wait_spare()
            t0 = time.perf_counter()
            res = grade(args.exercise, text, launch)
            times.append(time.perf_counter() - t0)
            verdicts.append(res.verdict.value)
            phases.append({p.name: p.ms for p in res.phases})
            profs.append(_flat(get_runner().last_profile))
        cases[case] = times
        profiles[case] = {k: statistics.median(p[k] for p in profs if k in p) for k in sorted(set().union(*profs))}
        ph = {k: statistics.median(p.get(k, 0.0) for p in phases) for k in phases[0]}
        print(f"turnaround {case:6} compile: median {statistics.median(times):.3f} s  "
              f"p95 {_p95(times):.3f} s  (n={len(times)}, verdicts {sorted(set(verdicts))}); "
              "median phase ms: " + ", ".join(f"{k} {v:.0f}" for k, v in ph.items()))
        print(f"  where the GPU stage went ({case}, medians, ms): "
              + ", ".join(f"{k} {v:.1f}" for k, v in profiles[case].items()))

    kpath = KERNELS / args.exercise / args.kernel
    ktext = kpath.read_text()
    klaunch = json.loads(_launch_line(ktext))
    big = dict(ex.largest_timing_size)
    values: dict[str, list[float]] = {}
    for _ in range(5):
        _wait_spare()
        res = grade(args.exercise, ktext, klaunch)
        for s in res.speedups:
            if s.size == big:
                values.setdefault(s.against, []).append(s.value)
    for against, vs in values.items():
        med = statistics.median(vs)
        spread = (max(vs) - min(vs)) / med
        print(f"speedup vs {against:8} over 5 gradings of {kpath.name} at {tuple(big.values())}: "
              + " ".join(f"{v:.3f}" for v in vs) + f"   spread {100 * spread:.2f} %")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"gpu": gpu, "turnaround_s": cases, "speedups": values, "profile_ms": profiles}, fh, indent=1)
    get_runner().shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
