"""The timing statistics and the too-slow rules with literal values, without a GPU (gpu/timing.py,
gpu/budget.py, gpu/scoring.py): what a planted-bug run found the other tests let through.

Documented behaviour: the spread is half the interquartile range; the relative standard error of a
median is 1.2533 * (IQR / 1.349) / sqrt(n) / median and is infinite below 4 samples; a speedup's
interval is the 2.5th to 97.5th percentile of 1000 paired bootstrap resamples (seed 0), and with
fewer than 3 rounds it is the point itself; timing that runs out of time still takes 5 rounds (or
min_rounds, if fewer); a kernel exactly at the ratio limit is still timed, one past it is not, and
one with no naive time to compare with is treated as infinitely slow; the deadline keeps at most
1 s for the last checks; a learner more than 1.3x faster than cuBLAS HGEMM or 1.15x faster than a
device-to-device copy is flagged; a size is noisy when its least steady median's RSE exceeds 3%.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from kernels.engine.gpu.budget import SlowGuard, TooSlow, timing_deadline, too_slow_message
from kernels.engine.gpu.scoring import summarize
from kernels.engine.gpu.timing import TimingStats, speedup
from kernels.engine.result import Message, Result, Verdict
from tests.engine.test_scoring import LARGE, size, steady
from tests.gpu.test_gpu_budget import _measure, fake_gpu  # noqa: F401  (the fixture)


def test_the_spread_is_half_the_interquartile_range():
    assert TimingStats("x", [1.0, 2.0, 3.0, 4.0, 5.0]).spread_ms == 1.0


def test_the_relative_standard_error_of_the_median():
    stats = TimingStats("x", [0.9, 1.1] * 10 + [1.0])  # IQR 0.2, n 21, median 1.0
    assert stats.rse == pytest.approx(1.2533 * (0.2 / 1.349) / math.sqrt(21), rel=1e-9)
    assert stats.rse == pytest.approx(0.040547, abs=1e-6)


def test_fewer_than_four_samples_have_no_finite_error():
    assert TimingStats("x", [1.0, 1.1, 1.2]).rse == math.inf
    assert math.isfinite(TimingStats("x", [1.0, 1.1, 1.2, 1.3]).rse)


def test_two_rounds_give_the_point_speedup_as_its_own_interval():
    assert speedup(TimingStats("naive", [2.0, 4.0]), TimingStats("learner", [1.0, 1.0])) == (3.0, 3.0, 3.0)


def test_the_interval_is_the_middle_95_percent_of_a_paired_bootstrap():
    against = [2.0, 2.2, 1.8, 2.5, 1.9, 2.1, 2.4, 1.7, 2.3, 2.0, 2.6]
    learner = [1.0, 1.3, 0.9, 1.1, 1.2, 0.8, 1.0, 1.4, 0.9, 1.1, 1.0]
    value, low, high = speedup(TimingStats("tiled", against), TimingStats("learner", learner))
    a, b = np.asarray(against), np.asarray(learner)
    idx = np.random.default_rng(0).integers(0, 11, size=(1000, 11))
    ratios = np.median(a[idx], axis=1) / np.median(b[idx], axis=1)
    assert value == pytest.approx(2.1 / 1.0)
    assert (low, high) == pytest.approx(tuple(np.percentile(ratios, [2.5, 97.5])), rel=1e-12)


def test_timing_that_runs_out_of_time_still_takes_five_rounds(fake_gpu):  # noqa: F811
    gpu = fake_gpu(naive=200.0, learner=200.0)  # each round takes 0.4 s of a 0.1 s budget
    stats = _measure(gpu, None, max_seconds=0.1, min_rounds=10)
    assert stats["learner"].n == 5 and stats["naive"].n == 5
    few = _measure(fake_gpu(naive=200.0, learner=200.0), None, max_seconds=0.1, min_rounds=3)
    assert few["learner"].n == 3


def _guard(learner_ms: float, naive_ms: float) -> SlowGuard:
    guard = SlowGuard(limit=20.0, deadline=1e9)
    guard.probe = {"learner": learner_ms, "naive": naive_ms}
    return guard


def test_a_kernel_exactly_at_the_ratio_limit_is_still_timed():
    assert _guard(40.0, 2.0).after_probe() == 20.0
    with pytest.raises(TooSlow) as info:
        _guard(41.0, 2.0).after_probe()
    assert info.value.ratio == 20.5


def test_a_learner_time_with_no_naive_time_to_compare_is_too_slow():
    with pytest.raises(TooSlow) as info:
        _guard(5.0, 0.0).after_probe()
    assert info.value.ratio == math.inf
    assert too_slow_message(info.value, 20.0).params["ratio"] == 20.0


def test_the_deadline_is_reached_at_its_own_instant():
    guard = SlowGuard(limit=20.0, deadline=50.0)
    assert guard.out_of_time(50.0) is True and guard.out_of_time(49.999) is False


def test_the_reserve_for_the_last_checks_is_at_most_one_second():
    assert timing_deadline(10.0, 30.0) == pytest.approx(39.0)
    assert timing_deadline(0.0, 100.0) == pytest.approx(99.0)


def _flags(baseline: str, unit: str, learner_ms: float) -> list[str]:
    result = Result(verdict=Verdict.PASSED, message=Message("PASSED", {}), exercise="x")
    summarize({"work": {"metric": unit}, "baseline": baseline, "pass_xp": 5},
              [size(LARGE, learner=steady(learner_ms), baseline=steady(1.0))], result)
    return [f.code for f in result.flags]


def test_faster_than_cublas_hgemm_by_more_than_1_3x_is_flagged():
    assert _flags("cublas_hgemm", "TFLOP/s", 0.7) == ["IMPLAUSIBLY_FAST"]  # 1.43x
    assert _flags("cublas_hgemm", "TFLOP/s", 0.8) == []  # 1.25x


def test_faster_than_a_device_copy_by_more_than_1_15x_is_flagged():
    assert _flags("d2d_copy", "GB/s", 0.85) == ["IMPLAUSIBLY_FAST"]  # 1.18x
    assert _flags("d2d_copy", "GB/s", 0.9) == []  # 1.11x


def _noisy(learner: list[float]) -> list[Message]:
    result = Result(verdict=Verdict.PASSED, message=Message("PASSED", {}), exercise="gemm")
    n = len(learner)
    summarize({"work": {"metric": "TFLOP/s"}, "baseline": "cublas_sgemm", "pass_xp": 5},
              [size(LARGE, learner=learner, naive=[5.0] * n, baseline=[0.9] * n)], result)
    return [f for f in result.flags if f.code == "NOISY_TIMING"]


def test_a_relative_error_over_three_percent_is_noisy_and_under_it_is_not():
    flagged = _noisy([0.9, 1.1] * 10 + [1.0])  # RSE 4.05 %
    assert len(flagged) == 1 and flagged[0].params["rse"] == pytest.approx(0.040547, abs=1e-6)
    assert _noisy([0.95, 1.05] * 10 + [1.0]) == []  # RSE 2.03 %


def test_too_few_samples_for_an_error_are_not_called_noisy():
    assert _noisy([1.0, 1.0, 1.0]) == []  # RSE infinite: nothing measured, nothing to flag
