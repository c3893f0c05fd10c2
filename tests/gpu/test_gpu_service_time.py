"""What keeps a job's GPU time short and its figures honest, without a GPU where possible:

- the cuBLAS baseline's timing window opens after a GPU-side wait (the hold kernel, compiled by the
  parent and sent with every job), so cuBLAS's host dispatch is not timed;
- the smaller timing sizes, shown for context, stop at a looser target than the largest one;
- the runner reports where a job's time went (for the benchmarks).

The ``gpu``-marked tests run the hold kernel on a real GPU (run with ``--noconftest -m gpu``).
"""

from __future__ import annotations

import base64
import json
import sys

import pytest

from kernels.engine import load_exercise

from .gpuhelp import needs_gpu
from .test_gpu_budget import FakeGpu
from .test_gpu_cpu_side import FakeCompiled, _plan


def test_every_job_carries_the_hold_kernel_compiled_by_the_parent():
    from kernels.engine.gpu.jobs import build_job
    from kernels.engine.gpu.worker_process import Limits

    ex = load_exercise("gemm")
    job = build_job(ex, FakeCompiled(), _plan(ex), limits=Limits(job_s=10.0))
    cubin = base64.b64decode(job["hold"]["cubin_b64"])
    assert job["hold"]["us"] == 200
    assert cubin[:4] == b"\x7fELF" and b"hold" in cubin  # a real cubin with the kernel in it


def test_a_held_window_times_the_call_without_the_wait(monkeypatch):
    """The hold runs after the flush and before the baseline's start event: a call whose host
    dispatch overlaps the wait is timed for its GPU time alone; other kernels get no wait."""
    from kernels.engine.gpu.timing import measure

    gpu = FakeGpu({"learner": 0.5, "baseline": 0.1})
    monkeypatch.setitem(sys.modules, "cupy", gpu.module)
    held = []

    def hold():  # the GPU waits 0.2 ms: the fake clock moves on outside the window
        held.append(gpu.now)
        gpu.now += 0.2 / 1000.0

    stats = measure(gpu.launches(), flush_l2=False, max_seconds=10.0, target_rse=1e-9, min_rounds=8,
                    max_rounds=8, seed=1, clock=gpu.clock, before_window={"baseline": hold})
    assert stats["baseline"].median_ms == pytest.approx(0.1)
    assert stats["learner"].median_ms == pytest.approx(0.5)
    assert len(held) == 8  # once per timed round, none in the warm-up rounds


def test_only_cublas_baselines_are_held():
    from kernels.engine.gpu.timed_runs import HELD_BASELINES

    assert set(HELD_BASELINES) == {"cublas_sgemm", "cublas_hgemm"}


def test_the_smaller_sizes_stop_at_four_times_the_target():
    from kernels.engine.gpu.timed_runs import size_target_rse

    assert size_target_rse(0.005, 2, 0) == pytest.approx(0.02)
    assert size_target_rse(0.005, 2, 1) == pytest.approx(0.005)
    assert [size_target_rse(0.01, 3, i) for i in (0, 1, 2)] == pytest.approx([0.04, 0.04, 0.01])
    assert size_target_rse(0.005, 1, 0) == pytest.approx(0.005)  # one size: it decides the tiers


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("made", ["parent cubin", "in process"])
def test_the_hold_keeps_the_gpu_busy_for_its_time(made):
    import cupy

    from kernels.engine.gpu.hold import hold_compiled_here, hold_cubin, hold_from_cubin

    hold = hold_from_cubin(hold_cubin("sm_90"), 300) if made == "parent cubin" else hold_compiled_here(300)
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    hold()  # loads the module
    start.record()
    hold()
    stop.record()
    stop.synchronize()
    assert cupy.cuda.get_elapsed_time(start, stop) >= 0.29  # the global timer moved 300 us at least


def test_a_size_timed_in_few_rounds_still_rechecks_a_random_one():
    """Besides the last round: one of the first ten always, others at random, three at most, never
    a warm-up round; which one depends on the job's secret seed."""
    import numpy as np

    from kernels.engine.gpu.timed_runs import Rechecks

    always = set()
    for seed in range(200):
        plan = Rechecks(np.random.default_rng([seed, 2, 0]))
        assert not plan.wants(-1) and not plan.wants(-2)
        chosen = [r for r in range(10) if plan.wants(r)]
        assert 1 <= len(chosen) <= 3
        assert plan.always in chosen or len(chosen) == 3  # the cap can come first
        assert not any(plan.wants(r) for r in range(10, 300)) or len(chosen) < 3
        always.add(plan.always)
    assert always == set(range(10))  # every one of the first ten rounds can be the one


def test_the_worker_runs_blas_on_one_thread():
    """The host re-checks run beside the timing thread: BLAS's own threads would fight it."""
    from kernels.engine.gpu import sandbox

    for sandboxed in (True, False):
        env = sandbox.worker_env(sandboxed=sandboxed)
        assert env["OPENBLAS_NUM_THREADS"] == "1" and env["OMP_NUM_THREADS"] == "1"
        assert env["MKL_NUM_THREADS"] == "1"
    args = sandbox.bwrap_args()  # the sandboxed worker gets them through bubblewrap
    at = args.index("OPENBLAS_NUM_THREADS")
    assert args[at - 1] == "--setenv" and args[at + 1] == "1"


def test_the_worker_context_has_one_hardware_queue():
    """Fresh contexts are made one at a time by the driver on a host of several GPUs; one work queue
    per context makes them faster. The sandboxed worker gets the setting through bubblewrap."""
    from kernels.engine.gpu import sandbox

    for sandboxed in (True, False):
        assert sandbox.worker_env(sandboxed=sandboxed)["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"
    args = sandbox.bwrap_args()
    at = args.index("CUDA_DEVICE_MAX_CONNECTIONS")
    assert args[at - 1] == "--setenv" and args[at + 1] == "1"


def test_context_sizes_stop_after_five_rounds_the_largest_after_ten():
    from kernels.engine.gpu.timed_runs import size_min_rounds

    assert [size_min_rounds(2, i) for i in (0, 1)] == [5, 10]
    assert [size_min_rounds(3, i) for i in (0, 1, 2)] == [5, 5, 10]
    assert size_min_rounds(1, 0) == 10  # one size: it decides the tiers


def test_the_always_rechecked_round_falls_within_the_sizes_least_rounds():
    import numpy as np

    from kernels.engine.gpu.timed_runs import Rechecks

    chosen = {Rechecks(np.random.default_rng([seed, 2, 0]), window=5).always for seed in range(200)}
    assert chosen == {0, 1, 2, 3, 4}


def _timed(sizes, changed=None, found=None):
    from kernels.engine.gpu.timed_runs import SizeTimings

    return SizeTimings(sizes=sizes, stats={}, checked_rounds=1, work=1.0,
                       verdicts=[lambda: None, lambda: found], changed=lambda: changed)


def _run():
    from kernels.engine.gpu.timed_runs import TimingRun
    from kernels.engine.result import Message, Result, Verdict

    result = Result(verdict=Verdict.PASSED, message=Message("PASSED"), exercise="gemm")
    return TimingRun(job={}, exercise={}, reference=None, learner=None, references={}, flusher=None,
                     budget_s=1.0, launch_limit_s=1.0, target_rse=0.005, result=result)


def test_the_checks_of_every_size_are_settled_in_order_after_the_last_size():
    """A size's re-checks run while the next size is timed; the first failure in size order is the
    verdict, an input left changed before a wrong value."""
    from kernels.engine.gpu.launching import JobFailed
    from kernels.engine.gpu.timed_runs import settle_all

    small, big = {"M": 1024, "N": 1024, "K": 1024}, {"M": 2048, "N": 2048, "K": 2048}
    wrong = {"index": [3, 7], "got": 1.5, "expected": 2.5}
    run = _run()
    with pytest.raises(JobFailed) as info:
        settle_all(run, [_timed(small, found=wrong), _timed(big, changed=("A", [0, 1]))])
    assert info.value.result.verdict.value == "WRONG_ANSWER"
    assert info.value.result.message.code == "WRONG_ANSWER_TIMED_RUN"
    assert info.value.result.message.params["size"] == small
    assert info.value.result.message.params["index"] == [3, 7]
    run = _run()
    with pytest.raises(JobFailed) as info:
        settle_all(run, [_timed(small), _timed(big, changed=("A", [0, 1]), found=wrong)])
    assert info.value.result.message.code == "INPUT_MODIFIED"
    assert info.value.result.message.params == {"size": big, "input": "A", "index": [0, 1]}
    run = _run()
    entries = [_timed(small), _timed(big)]
    settle_all(run, entries)  # nothing wrong: nothing raised, the wait is in each size's profile
    assert run.result.verdict.value == "PASSED" and all("checks_ms" in e.profile for e in entries)


def bench_lines(module: str) -> list[str]:
    """What ``python -m <module> --gpus 1 --per-gpu 2`` printed, line by line (it must succeed)."""
    import subprocess

    out = subprocess.run([sys.executable, "-m", module, "--gpus", "1", "--per-gpu", "2"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.splitlines()


def reported(lines: list[str], prefix: str) -> dict:
    return json.loads(next(line for line in lines if line.startswith(prefix))[len(prefix):])


@pytest.mark.gpu
@needs_gpu
def test_the_context_bench_reports_a_workers_context_alone_and_at_once():
    lines = bench_lines("kernels.engine.gpu.bench_contexts")
    alone = reported(lines, "GPU 0 alone: ")
    assert {"imports_ms", "context_ms", "cublas_ms", "warm_ms", "start_ms"} <= set(alone)
    assert 0 < alone["context_ms"] < alone["start_ms"]
    assert any(line.startswith("GPU 0 with 1 at once: ") for line in lines)
    assert any(line.startswith("context: ") and " x that with 1 GPUs at once" in line for line in lines)


@pytest.mark.gpu
@needs_gpu
def test_the_driver_bench_reports_fresh_processes_and_recycled_contexts():
    lines = bench_lines("kernels.engine.gpu.bench_driver")
    fresh = reported(lines, "fresh, GPU 0 alone: ")
    assert {"init_ms", "context_ms", "alloc_ms", "destroy_ms", "process_ms", "pageable_memory_access",
            "pci_bus_id"} <= set(fresh)
    assert fresh["pci_bus_id"].count(":") == 2  # one card, e.g. 0000:00:06.0
    assert 0 < fresh["init_ms"] < fresh["process_ms"] and fresh["context_ms"] > 0
    recycled = reported(lines, "recycle, GPU 0 alone: ")
    assert recycled["context_ms"] > 0 and recycled["destroy_ms"] > 0
    assert sum(line.startswith(("fresh: ", "recycle: ")) and "contexts per second over the host" in line
               for line in lines) == 2
    assert lines[0].startswith("before: ") and lines[-1].startswith("after: ")
