"""From timings to tiers, flags and XP (kernels/engine/gpu/scoring.py), on synthetic timings: no GPU.

Documented behaviour (the tiers in kernels/*/spec.yaml, the flags in gpu/scoring.py): a tier is met when the LOWER end of the
speedup's 95% confidence interval at the largest timing size reaches the tier's threshold, so a noisy
run whose point estimate passes but whose interval reaches below does not earn the tier; a learner
more than 1.3x faster than cuBLAS is flagged as implausible; a size whose least steady median has a
relative standard error over 3% is flagged as noisy.
"""
from __future__ import annotations

import math

import pytest

from kernels.engine.gpu.scoring import summarize, work_rate
from kernels.engine.gpu.timed_runs import SizeTimings
from kernels.engine.gpu.timing import TimingStats
from kernels.engine.result import Message, Result, Verdict

SMALL = {"M": 1024, "N": 1024, "K": 1024}
LARGE = {"M": 2048, "N": 2048, "K": 2048}
EXERCISE = {
    "work": {"metric": "TFLOP/s"},
    "baseline": "cublas_sgemm",
    "pass_xp": 50,
    "tiers": [{"id": "beats_naive", "against": "naive", "speedup": 4.0, "xp": 10},
              {"id": "beats_tiled", "against": "tiled", "speedup": 2.0, "xp": 30}],
}


def steady(ms: float, n: int = 21) -> list[float]:
    """n samples within +-0.2% of ms: a quiet GPU."""
    return [ms * (1 + 0.002 * ((i % 5) - 2) / 2) for i in range(n)]


def size(sizes: dict[str, int], **samples: list[float]) -> SizeTimings:
    work = 2.0 * sizes["M"] * sizes["N"] * sizes["K"]
    return SizeTimings(sizes=sizes, stats={name: TimingStats(name, list(s)) for name, s in samples.items()},
                       checked_rounds=2, work=work)


def scored(*sizes: SizeTimings) -> Result:
    result = Result(verdict=Verdict.PASSED, message=Message("PASSED", {}), exercise="gemm")
    summarize(EXERCISE, list(sizes), result)
    return result


def tiers(result: Result) -> dict[str, bool]:
    return {t.id: t.met for t in result.tiers}


def flags(result: Result) -> list[str]:
    return [f.code for f in result.flags]


def test_a_steady_fast_kernel_meets_both_tiers():
    result = scored(size(LARGE, learner=steady(1.0), naive=steady(5.0), tiled=steady(2.5), baseline=steady(0.5)))
    assert tiers(result) == {"beats_naive": True, "beats_tiled": True}
    assert (result.xp.pass_xp, result.xp.tier_xp, result.xp.total) == (50, 40, 90)
    tiled = next(s for s in result.speedups if s.against == "tiled")
    assert tiled.ci_low <= 2.5 <= tiled.ci_high and math.isclose(tiled.value, 2.5, rel_tol=1e-6)
    assert tiled.confidence == 0.95
    assert flags(result) == []


def test_a_noisy_run_whose_point_estimate_passes_is_judged_on_the_intervals_lower_bound():
    # the learner's median is 1.0 ms (2.05x the tiled kernel's 2.05 ms, 4.1x the naive one's 4.1 ms),
    # but half its rounds took 0.6 ms and half 1.4 ms: both intervals reach far below their thresholds
    noisy = [0.6, 1.4] * 10 + [1.0]
    result = scored(size(LARGE, learner=noisy, naive=steady(4.1), tiled=steady(2.05), baseline=steady(0.5)))
    tiled = next(s for s in result.speedups if s.against == "tiled")
    assert math.isclose(tiled.value, 2.05, rel_tol=1e-6)
    assert tiled.ci_low < 2.0 < tiled.value
    assert tiers(result) == {"beats_naive": False, "beats_tiled": False}
    assert result.xp.tier_xp == 0 and result.xp.total == 50
    assert "NOISY_TIMING" in flags(result)


def test_tiers_are_judged_at_the_largest_size_only():
    result = scored(size(SMALL, learner=steady(0.1), naive=steady(0.5), tiled=steady(0.3), baseline=steady(0.05)),
                    size(LARGE, learner=steady(1.0), naive=steady(5.0), tiled=steady(1.5), baseline=steady(0.5)))
    assert tiers(result) == {"beats_naive": True, "beats_tiled": False}  # 3x against tiled at the small size only
    assert result.xp.total == 60
    assert len(result.timings) == 8 and len(result.speedups) == 6
    assert {t.kernel for t in result.timings} == {"learner", "naive", "tiled", "baseline"}


def test_timings_carry_the_work_rate_in_the_specs_unit():
    result = scored(size(LARGE, learner=steady(2.0), naive=steady(8.0), tiled=steady(4.0), baseline=steady(1.0)))
    learner = next(t for t in result.timings if t.kernel == "learner")
    # 2 * 2048^3 flops in 2.0 ms = 8.59 TFLOP/s
    assert learner.unit == "TFLOP/s" and round(learner.work_rate, 2) == 8.59
    assert learner.samples == 21 and math.isclose(learner.median_ms, 2.0, rel_tol=1e-3)


def test_faster_than_cublas_by_more_than_1_3x_is_flagged_and_just_under_is_not():
    fast = scored(size(LARGE, learner=steady(0.7), naive=steady(5.0), tiled=steady(2.5), baseline=steady(1.0)))
    assert flags(fast) == ["IMPLAUSIBLY_FAST"]  # 1.43x the baseline's rate
    assert fast.flags[0].params["kernel"] == "learner"
    close = scored(size(LARGE, learner=steady(0.8), naive=steady(5.0), tiled=steady(2.5), baseline=steady(1.0)))
    assert flags(close) == []  # 1.25x the baseline's rate


def test_an_exercise_without_tiers_awards_the_pass_xp_only():
    result = Result(verdict=Verdict.PASSED, message=Message("PASSED", {}), exercise="x")
    summarize({"work": {"metric": "GB/s"}, "baseline": "d2d_copy", "pass_xp": 25},
              [size(LARGE, learner=steady(1.0), baseline=steady(1.0))], result)
    assert result.tiers == [] and (result.xp.pass_xp, result.xp.tier_xp, result.xp.total) == (25, 0, 25)
    assert result.speedups[0].against == "baseline" and result.timings[0].unit == "GB/s"


def test_the_flags_name_what_they_measured():
    fast = scored(size(LARGE, learner=steady(0.7), naive=steady(5.0), tiled=steady(2.5), baseline=steady(1.0)))
    params = fast.flags[0].params
    assert set(params) == {"kernel", "work_rate", "unit", "limit", "size"}
    # cuBLAS: 2 * 2048^3 flops in 1.0 ms = 17.18 TFLOP/s; the limit is 1.3 times that
    assert params["unit"] == "TFLOP/s" and params["size"] == LARGE
    assert round(params["limit"], 2) == 22.33 and round(params["work_rate"], 2) == 24.54
    noisy = scored(size(LARGE, learner=[0.6, 1.4] * 10 + [1.0], naive=steady(4.1), tiled=steady(2.05),
                        baseline=steady(0.5)))
    flag = next(f for f in noisy.flags if f.code == "NOISY_TIMING")
    assert set(flag.params) == {"rse", "size"} and flag.params["size"] == LARGE and flag.params["rse"] > 0.03


def test_a_baseline_without_a_plausibility_limit_raises_no_flag():
    result = Result(verdict=Verdict.PASSED, message=Message("PASSED", {}), exercise="x")
    summarize({"work": {"metric": "GB/s"}, "baseline": "something_else", "pass_xp": 5},
              [size(LARGE, learner=steady(0.1), baseline=steady(1.0))], result)  # 10x the baseline: no limit known
    assert flags(result) == []


def test_a_speedup_exactly_at_the_threshold_meets_the_tier():
    # identical rounds: the interval is the point itself, 2.0 against a threshold of 2.0
    result = scored(size(LARGE, learner=[1.0] * 21, naive=[3.0] * 21, tiled=[2.0] * 21, baseline=[0.5] * 21))
    tiled = next(s for s in result.speedups if s.against == "tiled")
    assert (tiled.value, tiled.ci_low, tiled.ci_high) == (2.0, 2.0, 2.0)
    assert tiers(result) == {"beats_naive": False, "beats_tiled": True}


def test_tier_outcomes_carry_their_tier_and_a_tier_without_timings_is_not_met():
    result = scored(size(LARGE, learner=steady(1.0), naive=steady(5.0), baseline=steady(0.5)))  # no tiled kernel timed
    outcomes = [(t.id, t.against, t.threshold, t.met, t.xp) for t in result.tiers]
    assert outcomes == [("beats_naive", "naive", 4.0, True, 10), ("beats_tiled", "tiled", 2.0, False, 30)]
    assert all(t.size == LARGE and t.spread_ms >= 0 for t in result.timings)


def test_an_exercise_without_pass_xp_pays_nothing_for_passing():
    result = Result(verdict=Verdict.PASSED, message=Message("PASSED", {}), exercise="x")
    summarize({"work": {"metric": "GB/s"}, "baseline": "d2d_copy"}, [size(LARGE, learner=steady(1.0))], result)
    assert (result.xp.pass_xp, result.xp.tier_xp, result.xp.total) == (0, 0, 0)


@pytest.mark.parametrize("work, ms, unit, expected", [
    (1e12, 1.0, "TFLOP/s", 1000.0),  # 10^12 flops in a millisecond: 1,000 TFLOP/s
    (2e9, 1.0, "GB/s", 2000.0),  # 2 GB in a millisecond: 2,000 GB/s
    (5.0, 1.0, "items/s", 5000.0),  # any other unit: work per second
    (2e9, 4.0, "GB/s", 500.0),
])
def test_work_rate(work, ms, unit, expected):
    assert math.isclose(work_rate(work, ms, unit), expected, rel_tol=1e-14)


@pytest.mark.parametrize("ms", [0.0, -1.0, None])
def test_no_work_rate_without_a_positive_time(ms):
    assert math.isnan(work_rate(1e9, ms, "GB/s"))
