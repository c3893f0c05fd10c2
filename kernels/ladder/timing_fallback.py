"""Minimal GPU timing loop — a STAND-IN, TO BE REPLACED by kernels.engine.gpu.timing.measure.

Same call shape as the engine's contract: measure({name: launch}) -> {name: stats}, interleaved
round by round (every candidate runs once per round, so clock drift hits all alike), CUDA events
around each launch, one warm-up call each, and the L2 cache overwritten before every timed
launch so that small problems are not timed out of a warm cache.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import cupy as cp
import numpy as np


@dataclass(frozen=True)
class TimingStats:
    median_ms: float
    spread_ms: float        # interquartile range
    runs: int


def measure(launches: dict[str, Callable[[], None]], *, flush_l2: bool = True,
            max_seconds: float = 1.0, min_runs: int = 3, max_runs: int = 50) -> dict[str, TimingStats]:
    l2 = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrL2CacheSize, cp.cuda.Device().id)
    scratch = cp.empty(max(2 * l2, 1 << 20), dtype=cp.uint8) if flush_l2 else None
    for fn in launches.values():       # warm-up: module load, cuBLAS handle and heuristics
        fn()
    cp.cuda.Device().synchronize()

    samples: dict[str, list[float]] = {k: [] for k in launches}
    start = time.perf_counter()
    while True:
        pairs = []
        for name, fn in launches.items():
            if scratch is not None:
                scratch.fill(1)
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            pairs.append((name, a, b))
        for name, a, b in pairs:
            b.synchronize()
            samples[name].append(cp.cuda.get_elapsed_time(a, b))
        n = len(next(iter(samples.values())))
        if n >= max_runs or (n >= min_runs and time.perf_counter() - start >= max_seconds):
            break
    out = {}
    for name, s in samples.items():
        arr = np.asarray(s)
        q1, med, q3 = np.percentile(arr, [25, 50, 75])
        out[name] = TimingStats(median_ms=float(med), spread_ms=float(q3 - q1), runs=len(s))
    return out
