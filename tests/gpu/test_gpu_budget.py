"""One job's GPU-time budget, without a GPU: ``timing.measure`` driven by a fake GPU whose kernels
advance a fake clock (so a kernel "runs" 3000x longer than the naive one without anyone waiting),
the worker's limits read from the settings, and the parent cutting a job that never ends.

The rules (kernels/engine/gpu/budget.py): after the first untimed round, a kernel more than the
ratio limit (default 20) times slower than the naive kernel is not timed (TOO_SLOW); a kernel whose
first launch would not fit the deadline is not launched at all; timing stops at the deadline; a job
that does not end is killed at the job limit (TIME_LIMIT).
"""

from __future__ import annotations

import sys
import types

import pytest

from kernels.engine.gpu.budget import SlowGuard, TooSlow, timing_deadline, too_slow_message


class FakeGpu:
    """Just enough of cupy for ``measure``: launches take simulated milliseconds on one clock."""

    def __init__(self, kernel_ms: dict[str, float]):
        self.kernel_ms = kernel_ms
        self.now = 100.0  # seconds, the "time.perf_counter()" of the worker
        self.launched: dict[str, int] = {name: 0 for name in kernel_ms}
        gpu = self

        class Event:
            def __init__(self):
                self.at = None

            def record(self, stream=None):
                self.at = gpu.now

        class Stream:
            ptr = 0

            def synchronize(self):
                pass

        stream = Stream()
        cuda = types.SimpleNamespace(Event=Event, get_current_stream=lambda: stream,
                                     get_elapsed_time=lambda a, b: (b.at - a.at) * 1000.0)
        self.module = types.SimpleNamespace(cuda=cuda)

    def launches(self):
        def launcher(name):
            def launch():
                self.launched[name] += 1
                self.now += self.kernel_ms[name] / 1000.0
            return launch
        return {name: launcher(name) for name in self.kernel_ms}

    def clock(self):
        return self.now


@pytest.fixture
def fake_gpu(monkeypatch):
    def make(**kernel_ms):
        gpu = FakeGpu(kernel_ms)
        monkeypatch.setitem(sys.modules, "cupy", gpu.module)
        return gpu
    return make


def _measure(gpu, guard, **kwargs):
    from kernels.engine.gpu.timing import measure

    args = dict(flush_l2=False, max_seconds=0.5, target_rse=1e-9, min_rounds=10, max_rounds=300, seed=1)
    args.update(kwargs)
    return measure(gpu.launches(), guard=guard, clock=gpu.clock, **args)


def test_a_kernel_3000_times_slower_than_naive_is_cut_after_one_launch(fake_gpu):
    gpu = fake_gpu(naive=0.4, tiled=0.3, baseline=0.1, learner=1200.0)
    started = gpu.now
    guard = SlowGuard(limit=20.0, deadline=started + 4.0)
    with pytest.raises(TooSlow) as info:
        _measure(gpu, guard)
    assert info.value.ratio == pytest.approx(3000.0)
    assert gpu.launched["learner"] == 1 and gpu.launched["naive"] == 1
    assert gpu.now - started < 1.3  # one launch of 1.2 s, not the 7+ of a full timing


def test_a_kernel_within_the_ratio_is_timed_as_before(fake_gpu):
    gpu = fake_gpu(naive=0.4, tiled=0.3, baseline=0.1, learner=4.0)  # 10x slower: under 20x
    stats = _measure(gpu, SlowGuard(limit=20.0, deadline=gpu.now + 4.0), max_rounds=12, min_rounds=12)
    assert stats["learner"].n == 12 and stats["learner"].median_ms == pytest.approx(4.0)
    assert stats["naive"].median_ms == pytest.approx(0.4)


def test_the_limit_is_a_setting_of_the_guard(fake_gpu):
    gpu = fake_gpu(naive=0.4, learner=4.0)
    with pytest.raises(TooSlow) as info:
        _measure(gpu, SlowGuard(limit=5.0, deadline=gpu.now + 4.0))
    assert info.value.ratio == pytest.approx(10.0)


def test_a_launch_predicted_past_the_deadline_never_starts(fake_gpu):
    # 1 ms per unit of work at a correctness size, 10 000 units here: 10 s predicted, 4 s left
    gpu = fake_gpu(naive=0.4, learner=10_000.0)
    guard = SlowGuard(limit=20.0, deadline=gpu.now + 4.0, expected_ms_per_work=1.0, work=10_000.0)
    with pytest.raises(TooSlow) as info:
        _measure(gpu, guard)
    assert gpu.launched["learner"] == 0 and gpu.launched["naive"] == 1
    assert info.value.ratio == pytest.approx(25_000.0)


def test_the_ratio_at_the_previous_size_predicts_the_next(fake_gpu):
    gpu = fake_gpu(naive=800.0, learner=15_000.0)  # a large size: naive 0.8 s, learner 15 s
    guard = SlowGuard(limit=20.0, deadline=gpu.now + 4.0, prior_ratio=18.0)  # 14.4 s predicted
    with pytest.raises(TooSlow):
        _measure(gpu, guard)
    assert gpu.launched["learner"] == 0


def test_timing_stops_at_the_deadline(fake_gpu):
    # 10 ms per round: a 0.06 s budget leaves room for the warm-up and a few rounds, not for 300
    gpu = fake_gpu(naive=1.0, learner=9.0)
    stats = _measure(gpu, SlowGuard(limit=20.0, deadline=gpu.now + 0.06), max_seconds=100.0)
    assert 3 <= stats["learner"].n <= 5
    assert gpu.now < 100.0 + 0.06 + 0.011  # the round in hand ends, no other starts


def test_too_few_rounds_before_the_deadline_is_too_slow(fake_gpu):
    gpu = fake_gpu(naive=1.0, learner=15.0)  # 16 ms a round, 40 ms left after nothing
    with pytest.raises(TooSlow) as info:
        _measure(gpu, SlowGuard(limit=20.0, deadline=gpu.now + 0.04), max_seconds=100.0)
    assert info.value.ratio == pytest.approx(15.0)


def test_without_a_guard_nothing_changes(fake_gpu):
    gpu = fake_gpu(naive=0.4, learner=1200.0)
    stats = _measure(gpu, None, max_rounds=6, min_rounds=6, max_seconds=100.0)
    assert stats["learner"].n == 6


def test_the_deadline_keeps_a_reserve_for_the_last_checks():
    assert timing_deadline(10.0, 5.0) == pytest.approx(14.0)  # 1 s kept of 5 s
    assert timing_deadline(10.0, 2.0) == pytest.approx(11.6)  # a fifth of a short limit


def test_the_message_carries_ratio_limit_and_size():
    message = too_slow_message(TooSlow(3012.46, {"M": 1024, "N": 1024, "K": 1024}), 20.0)
    assert message.code == "TOO_SLOW"
    assert message.params == {"ratio": 3012.5, "limit": 20.0, "size": {"M": 1024, "N": 1024, "K": 1024}}
    assert too_slow_message(TooSlow(float("inf")), 20.0).params["ratio"] == 20.0


def test_budget_and_ratio_are_settings(monkeypatch):
    from kernels.engine.gpu.jobs import build_job
    from kernels.engine.gpu.worker_process import Limits
    from kernels.engine.settings import engine_settings

    assert (engine_settings({}).gpu_job_budget_s, engine_settings({}).too_slow_ratio) == (5.0, 20.0)
    monkeypatch.setenv("MKC_GPU_JOB_BUDGET_S", "3.5")
    monkeypatch.setenv("MKC_TOO_SLOW_RATIO", "50")
    limits = Limits()
    assert (limits.job_s, limits.too_slow_ratio) == (3.5, 50.0)
    from kernels.engine import load_exercise
    from kernels.engine.launch import validate_launch

    class Compiled:
        cubin = b"\0" * 16
        kernel_name = "gemm"
        arch = "sm_90"

    ex = load_exercise("gemm")
    job = build_job(ex, Compiled(), validate_launch(ex.launch_defaults.as_request(), ex), limits=limits)
    assert job["limits"]["job_s"] == 3.5 and job["limits"]["too_slow_ratio"] == 50.0
    assert job["correctness_work"][0] == 2 and job["correctness_work"][1] == 2 * 17 ** 3
    for bad in ("0", "-1", "fast", "inf"):
        monkeypatch.setenv("MKC_GPU_JOB_BUDGET_S", bad)
        with pytest.raises(ValueError, match="MKC_GPU_JOB_BUDGET_S"):
            engine_settings()


# ---- the parent's side, with a fake worker speaking the real protocol ---------------------------

@pytest.fixture
def budget_runner(monkeypatch, tmp_path):
    from pathlib import Path

    from kernels.engine.gpu import sandbox
    from kernels.engine.gpu.runner import GpuRunner
    from kernels.engine.gpu.worker_process import Limits

    fake = Path(__file__).with_name("fake_worker.py")
    mode = {"value": "ok"}
    monkeypatch.setattr(sandbox, "worker_command",
                        lambda opts, fd, sandboxed: [sys.executable, str(fake), str(fd), mode["value"]])
    monkeypatch.setattr(sandbox, "bwrap_binary", lambda: "/bin/true")
    monkeypatch.setenv("MKC_GPU_LOCK", str(tmp_path / "gpu.lock"))
    monkeypatch.setenv("MKC_GPU_JOB_BUDGET_S", "1.5")
    runner = GpuRunner(Limits(launch_s=30.0, start_s=20.0), keep_spare=False)
    yield runner, mode
    runner.shutdown()


def _run_fake(runner):
    from kernels.engine import load_exercise
    from kernels.engine.gpu.runner import run_job
    from kernels.engine.launch import validate_launch

    class Compiled:
        cubin = b"\0" * 16
        kernel_name = "gemm"
        arch = "sm_90"

    ex = load_exercise("gemm")
    return run_job(ex, Compiled(), validate_launch(ex.launch_defaults.as_request(), ex), None, runner=runner)


def test_a_job_that_never_ends_is_killed_at_its_budget_with_time_limit(budget_runner):
    from kernels.engine.result import Verdict

    runner, mode = budget_runner
    mode["value"] = "hang_in_timing"
    result = _run_fake(runner)
    assert result.verdict is Verdict.TIME_LIMIT
    assert result.message.code == "TIME_LIMIT_EXCEEDED"
    assert result.message.params == {"seconds": 1.5, "phase": "timing"}


def test_a_too_slow_verdict_keeps_its_correctness_cases(budget_runner):
    from kernels.engine.result import Verdict

    runner, mode = budget_runner
    mode["value"] = "too_slow"
    result = _run_fake(runner)
    assert result.verdict is Verdict.TOO_SLOW and result.message.params["ratio"] == 3000.0
    assert [case.ok for case in result.correctness] == [True]
    assert result.speedups == [] and result.tiers == []


def test_all_stable_agrees_with_each_kernels_rse():
    import numpy as np

    from kernels.engine.gpu.timing import TimingStats, all_stable

    rng = np.random.default_rng(3)
    steady = {n: TimingStats(n, list(1.0 + 0.001 * rng.standard_normal(40))) for n in ("learner", "naive")}
    noisy = dict(steady, tiled=TimingStats("tiled", list(1.0 + 0.2 * rng.standard_normal(40))))
    for stats in (steady, noisy):
        assert all_stable(stats, 0.005) == all(s.rse <= 0.005 for s in stats.values())
    assert all_stable(steady, 0.005) and not all_stable(noisy, 0.005)
    assert not all_stable({"x": TimingStats("x", [1.0, 1.0, 1.0])}, 0.5)  # under 4 samples: never


def test_the_largest_size_gets_two_thirds_of_the_timing_budget():
    from kernels.engine.gpu.timed_runs import size_budget

    assert size_budget(0.5, 1, 0) == 0.5
    assert [round(size_budget(0.6, 2, i), 6) for i in (0, 1)] == [0.2, 0.4]
    assert [round(size_budget(0.6, 3, i), 6) for i in (0, 1, 2)] == [0.1, 0.1, 0.4]


def test_inputs_made_in_another_thread_are_the_same_arrays():
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from kernels.engine import load_exercise
    from kernels.engine.gpu.launching import load_reference
    from kernels.engine.gpu.timed_runs import host_inputs, prepare_inputs

    ex = load_exercise("gemm")
    reference = load_reference(str(ex.folder), "gemm")
    small = [{"M": 64, "N": 48, "K": 32}, {"M": 96, "N": 64, "K": 16}]
    job = {"seed": 1234, "exercise": {"timing_sizes": small}}
    with ThreadPoolExecutor(max_workers=1) as pool:
        futures = prepare_inputs(pool, reference, job)
        for index, (future, sizes) in enumerate(zip(futures, small, strict=True)):
            made = future.result()
            made_pool, made_ref = made.pool_host, made.reference_host
            assert made.pool_device is None  # uploading is asked for (the worker does, on a GPU)
            inline_pool, inline_ref = host_inputs(reference, sizes, 1234, index)
            assert len(made_pool) == 3 and made_pool[0]["A"].shape == (sizes["M"], sizes["K"])
            for a, b in zip(made_pool + [made_ref], inline_pool + [inline_ref], strict=True):
                assert all(np.array_equal(a[k], b[k]) for k in ("A", "B"))
            assert not np.array_equal(made_pool[0]["A"], made_pool[1]["A"])  # variants differ
