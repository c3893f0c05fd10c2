"""How long a sandboxed GPU worker takes to make its CUDA context, alone and on several GPUs of one
host at once: what bounds grading workers per host (every job gets a fresh worker, hence a fresh
context, and the driver makes contexts one at a time across the host's GPUs).

    python -m kernels.engine.gpu.bench_contexts [--gpus 4] [--per-gpu 6]

Starts ``--per-gpu`` real sandboxed workers one after another (imports, then "warm": context and
cuBLAS handle, no launch; then killed) on GPU 0 alone, then on GPUs 0..N-1 at once (one process per GPU,
each bound with CUDA_VISIBLE_DEVICES), and prints the GPU's name and clocks and, per GPU, the medians (ms)
of what each worker reported: imports, context, cuBLAS handle, and the whole start.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from .device import clocks_line

STAGES = ("imports_ms", "context_ms", "cublas_ms", "warm_ms")
MODULE = "kernels.engine.gpu.bench_contexts"  # the children run this module by name (run as a script, it is __main__)


def one_gpu(count: int) -> dict[str, float]:
    """``count`` workers in turn on this process's GPU: the medians of their start-up stages (ms)."""
    from .worker_process import Limits, Worker

    seen: list[dict[str, float]] = []
    for _ in range(count):
        t0 = time.perf_counter()
        worker = Worker(Limits(), deferred=True)
        try:
            ready = worker.wait_ready(120)
        finally:
            worker.kill()
        seen.append({**{k: float(v) for k, v in (ready.get("startup_ms") or {}).items()},
                     "start_ms": (time.perf_counter() - t0) * 1e3})
    return {k: round(statistics.median(s[k] for s in seen), 1) for k in (*STAGES, "start_ms") if k in seen[0]}


def at_once(gpus: int, per_gpu: int) -> dict[int, dict[str, float]]:
    """One process per GPU, all started together; each reports its medians as one JSON line."""
    procs = {gpu: subprocess.Popen([sys.executable, "-m", MODULE, "--one", str(per_gpu)], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu)))
             for gpu in range(gpus)}
    out = {}
    for gpu, proc in procs.items():
        text, errors = proc.communicate(timeout=600)
        lines = text.strip().splitlines()
        if proc.returncode != 0 or not lines:  # e.g. --gpus larger than the GPUs of this host
            raise SystemExit(f"GPU {gpu}: the measuring process failed (rc {proc.returncode}):\n{errors[-2000:]}")
        out[gpu] = json.loads(lines[-1])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpus", type=int, default=4, help="GPUs making contexts at once (default 4)")
    ap.add_argument("--per-gpu", type=int, default=6, help="workers started one after another per GPU")
    ap.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)  # a child: one GPU, print JSON
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(one_gpu(args.one)), flush=True)
        return 0
    print(f"before: {clocks_line()}")
    alone = at_once(1, args.per_gpu)[0]
    print(f"GPU 0 alone: {json.dumps(alone)}")
    together = at_once(args.gpus, args.per_gpu)
    for gpu, medians in together.items():
        print(f"GPU {gpu} with {args.gpus} at once: {json.dumps(medians)}")
    ratio = statistics.median(m["context_ms"] for m in together.values()) / alone["context_ms"]
    print(f"context: {alone['context_ms']} ms alone, {ratio:.2f} x that with {args.gpus} GPUs at once")
    print(f"after: {clocks_line()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
