"""Inside the GPU worker: from measured times to the Result's timings, speedups with confidence
intervals, flags (noisy timing, implausibly fast), tiers met and XP.

Imports the standard library only (and the engine's timing statistics).
"""

from __future__ import annotations

import math
from typing import Any

from .. import codes
from ..result import Message, Result, Speedup, TierOutcome, Timing, XpAward
from .timed_runs import SizeTimings
from .timing import speedup

# A learner faster than this share of the baseline's work rate is flagged for review: cuBLAS
# SGEMM and HGEMM run near the FMA and Tensor Core peaks (a hand kernel beating them by 1.3x is not
# credible), and nothing streams memory much faster than a device-to-device copy.
IMPLAUSIBLE = {"cublas_sgemm": 1.3, "cublas_hgemm": 1.3, "d2d_copy": 1.15}
NOISY_RSE = 0.03  # a size whose least steady median has a larger relative standard error is flagged


def work_rate(work: float, ms: float, unit: str) -> float:
    if not ms or ms <= 0:
        return float("nan")
    if unit == "TFLOP/s":
        return work / (ms * 1e-3) / 1e12
    if unit == "GB/s":
        return work / (ms * 1e-3) / 1e9
    return work / (ms * 1e-3)


def summarize(exercise: dict[str, Any], per_size: list[SizeTimings], result: Result) -> None:
    unit = exercise["work"]["metric"]
    for entry in per_size:
        sizes, stats = entry.sizes, entry.stats
        for name, st in stats.items():
            result.timings.append(Timing(kernel=name, size=sizes, median_ms=st.median_ms, spread_ms=st.spread_ms,
                                         work_rate=work_rate(entry.work, st.median_ms, unit), unit=unit,
                                         samples=st.n))
        for against in ("naive", "tiled", "baseline"):
            if against in stats:
                value, low, high = speedup(stats[against], stats["learner"])
                result.speedups.append(Speedup(against=against, size=sizes, value=value, ci_low=low,
                                               ci_high=high, confidence=0.95))
        rse = max(s.rse for s in stats.values())
        if rse > NOISY_RSE and math.isfinite(rse):
            result.flags.append(Message(codes.FLAG_NOISY_TIMING, {"rse": rse, "size": sizes}))
        limit = IMPLAUSIBLE.get(exercise["baseline"])
        if limit is not None and "baseline" in stats:
            learner_rate = work_rate(entry.work, stats["learner"].median_ms, unit)
            baseline_rate = work_rate(entry.work, stats["baseline"].median_ms, unit)
            if learner_rate > limit * baseline_rate:
                result.flags.append(Message(codes.FLAG_IMPLAUSIBLY_FAST, {
                    "kernel": "learner", "work_rate": learner_rate, "unit": unit, "limit": limit * baseline_rate,
                    "size": sizes}))
    largest = per_size[-1].sizes
    tier_xp = 0
    for tier in exercise.get("tiers", []):
        measured = next((s for s in result.speedups if s.against == tier["against"] and s.size == largest), None)
        met = bool(measured is not None and measured.ci_low >= float(tier["speedup"]))
        tier_xp += int(tier["xp"]) if met else 0
        result.tiers.append(TierOutcome(id=tier["id"], against=tier["against"], threshold=float(tier["speedup"]),
                                        met=met, xp=int(tier["xp"])))
    pass_xp = int(exercise.get("pass_xp", 0))
    result.xp = XpAward(pass_xp=pass_xp, tier_xp=tier_xp, total=pass_xp + tier_xp)
