"""GPU grading end to end on a real GPU: every correct solution passes, every wrong one gets
WRONG_ANSWER, every hostile kernel gets its verdict and an honest submission graded right after
still passes; full gradings report timings, speedups and tiers. Skipped without a GPU.

Run on the GPU machine:  pytest --noconftest -m gpu tests/gpu
"""

from __future__ import annotations

import pytest

from kernels.engine import load_exercise
from kernels.engine.result import Result, Verdict

from .gpuhelp import EXERCISES, KERNELS, compile_file, expected_verdict, ident, launch_of, needs_gpu, plan_for, solutions

pytestmark = [pytest.mark.gpu, needs_gpu]


@pytest.fixture(scope="module")
def runner():
    from kernels.engine.gpu.runner import GpuRunner
    from kernels.engine.gpu.worker_process import Limits

    r = GpuRunner(Limits(launch_s=4.0, timing_s=0.6))
    yield r
    r.shutdown()


def grade_file(runner, ex_id, path, *, timing=False, launch=None):
    from kernels.engine.gpu import run_job

    ex = load_exercise(ex_id)
    compiled = compile_file(ex, path)
    plan = plan_for(ex, launch or launch_of(path, ex))
    phases = []
    res = run_job(ex, compiled, plan, phases.append, do_timing=timing, runner=runner)
    assert isinstance(res, Result)
    Result.from_json(res.to_json())  # always serialisable in the schema's shape
    return res, phases


def honest_passes(runner):
    res, _ = grade_file(runner, "gemm", KERNELS / "gemm" / "tiled.cu")
    assert res.verdict is Verdict.PASSED, res.message


@pytest.mark.parametrize("ex_id,path", solutions("correct"), ids=ident)
def test_correct_solution_passes(runner, ex_id, path):
    res, phases = grade_file(runner, ex_id, path)
    assert res.verdict is Verdict.PASSED, (res.message, [c for c in res.correctness if not c.ok])
    assert len(res.correctness) == len(load_exercise(ex_id).correctness_sizes)
    assert all(c.ok for c in res.correctness)
    assert res.gpu and res.gpu.name and res.gpu.compute_capability.startswith("9")
    assert "checking" in phases


@pytest.mark.parametrize("ex_id", EXERCISES)
@pytest.mark.parametrize("which", ["naive.cu", "tiled.cu"])
def test_references_pass_as_submissions(runner, ex_id, which):
    res, _ = grade_file(runner, ex_id, KERNELS / ex_id / which)
    assert res.verdict is Verdict.PASSED, res.message


@pytest.mark.parametrize("ex_id,path", solutions("wrong"), ids=ident)
def test_wrong_solution_gets_wrong_answer(runner, ex_id, path):
    res, _ = grade_file(runner, ex_id, path)
    assert res.verdict is Verdict.WRONG_ANSWER, res.message
    bad = [c for c in res.correctness if not c.ok]
    assert len(bad) == 1 and bad[0].mismatch is not None
    assert res.message.code == "WRONG_ANSWER" and "index" in res.message.params


@pytest.mark.parametrize("ex_id", EXERCISES)
def test_starter_compiles_runs_and_is_not_a_solution(runner, ex_id):
    res, _ = grade_file(runner, ex_id, KERNELS / ex_id / "starter.cu")
    assert res.verdict is Verdict.WRONG_ANSWER, res.message


# gemm's hostile kernels, and hgemm's: the same attacks on float16 inputs and WMMA headers
HOSTILE = [(ex, path) for ex in ("gemm", "hgemm") for path in sorted((KERNELS / ex / "hostile").glob("*.cu"))]


@pytest.mark.parametrize("ex_id,path", HOSTILE, ids=ident)
def test_hostile_kernel_verdict_then_honest_passes(runner, ex_id, path):
    res, _ = grade_file(runner, ex_id, path, timing=True)
    assert res.verdict.value == expected_verdict(path), (res.message, res.flags)
    name = path.stem
    if name == "hang":
        assert res.message.code == "TIME_LIMIT_EXCEEDED"
    if name == "oob_write":
        assert res.message.code == "RUNTIME_ILLEGAL_ADDRESS"
        assert "ILLEGALADDRESS" in res.message.params["cuda_error"].upper().replace("_", "")
    if name in ("trap", "malloc_bomb", "oversized_launch"):
        assert res.message.params.get("cuda_error"), res.message
    if name == "input_mutation":
        assert res.message.code == "INPUT_MODIFIED" and res.message.params["input"] == "A"
    if name in ("replay_cache", "warm_then_lazy"):
        assert res.message.code == "WRONG_ANSWER_TIMED_RUN"
        assert all(c.ok for c in res.correctness[:-1])  # honest while being checked
    if name == "slow_hog":  # correct, about 3000x the naive kernel: stopped, not timed, not killed
        assert res.message.code == "TOO_SLOW" and res.message.params["ratio"] > 20, res.message
        assert res.message.params["limit"] == 20.0 and res.message.params["size"] == {"M": 1024, "N": 1024, "K": 1024}
        assert len(res.correctness) == 12 and all(c.ok for c in res.correctness)
        assert res.timings == [] and res.speedups == [] and res.tiers == []
    if name == "printf_flood":
        assert res.message.code == "TIME_LIMIT_EXCEEDED"
        out = [f for f in res.flags if f.code == "DEVICE_OUTPUT"]
        assert out and out[0].params["bytes"] > 4096 and len(out[0].params["text"]) <= 4096
        assert out[0].params["truncated"] is True and out[0].params["text"].startswith("flood")
    honest_passes(runner)


def test_oversized_launch_is_refused_by_grade_before_the_gpu():
    from kernels.engine import grade

    path = KERNELS / "gemm" / "hostile" / "oversized_launch.cu"
    ex = load_exercise("gemm")
    res = grade("gemm", path.read_text(), launch_of(path, ex))
    assert res.verdict is Verdict.RUNTIME_ERROR and res.message.code.startswith("LAUNCH_")


FAST = {"col_sum": "float4_columns.cu", "row_sum": "float4_warp_per_row.cu",
        "transpose": "tile64.cu", "gemm": "regtile_64x64.cu", "gemm_fast": "regtile_128x128.cu",
        "hgemm": "wmma_128x128_cp_async.cu"}


@pytest.mark.parametrize("ex_id", EXERCISES)
def test_full_grade_reports_timings_speedups_and_tiers(ex_id):
    """Through the engine's grade(): compile, check, time, tiers, XP."""
    from kernels.engine import grade

    ex = load_exercise(ex_id)
    path = KERNELS / ex_id / "solutions" / "correct" / FAST[ex_id]
    phases = []
    res = grade(ex_id, path.read_text(), launch_of(path, ex), on_phase=phases.append)
    assert res.verdict is Verdict.PASSED, res.message
    assert phases[:2] == ["validating", "compiling"] and "timing" in phases and phases[-1] == "done"
    for sizes in ex.timing_sizes:
        kernels = {t.kernel for t in res.timings if t.size == dict(sizes)}
        assert kernels == {"learner", "naive", "tiled", "baseline"}
        for t in res.timings:
            assert t.median_ms > 0 and t.work_rate > 0 and t.unit == ex.work.metric and t.samples >= 3
    for s in res.speedups:
        assert 0 < s.ci_low <= s.value <= s.ci_high
    assert [t.id for t in res.tiers] == [t.id for t in ex.tiers]
    assert res.xp.pass_xp == ex.pass_xp and res.xp.total == res.xp.pass_xp + res.xp.tier_xp
    assert not any(f.code == "IMPLAUSIBLY_FAST" for f in res.flags)
    # a correct, faster-than-naive kernel beats the naive reference
    assert any(t.id == "beat_naive" and t.met for t in res.tiers) or ex_id == "gemm_fast"


def test_gemm_fast_reference_solution_reaches_twice_tiled():
    """The exercise promises '2x tiled' is reachable: our own 128x128 register-tiled kernel."""
    from kernels.engine import grade

    path = KERNELS / "gemm_fast" / "solutions" / "correct" / "regtile_128x128.cu"
    res = grade("gemm_fast", path.read_text(), launch_of(path, load_exercise("gemm_fast")))
    assert res.verdict is Verdict.PASSED
    sp = [s for s in res.speedups if s.against == "tiled" and s.size["M"] == 4096][0]
    assert sp.value >= 2.0, sp


def test_fresh_inputs_every_job(runner):
    path = KERNELS / "gemm" / "solutions" / "wrong" / "zeros.cu"
    a, _ = grade_file(runner, "gemm", path)
    b, _ = grade_file(runner, "gemm", path)
    assert a.message.params["expected"] != b.message.params["expected"]


def test_spare_worker_takes_the_next_job(runner):
    runner.warm_in_background()
    if runner._warming is not None:
        runner._warming.join(60)
    res, _ = grade_file(runner, "gemm", KERNELS / "gemm" / "tiled.cu")
    assert res.verdict is Verdict.PASSED
    assert res.versions.get("gpu_cold_start") == "False"
    assert res.versions.get("gpu_worker") == "sandboxed"


# Nothing of one job reaches the next (each runs in a fresh worker, hence a fresh CUDA context). This
# kernel is a correct gemm that, in one thread, takes a block from the device heap, fills it with a
# mark and frees it; at a job's first launch (its first correctness size, 1x1x1) it first counts the
# marks already there and answers wrong if it finds any. Within one context the next malloc of that
# size gets the same block back, mark and all (measured: a version that counted at every launch found
# the job's own marks from its previous launch), so a context that outlived its job would show an
# earlier job's mark to the next job's first launch.
HEAP_PROBE = r'''
    if (row == 0 && col == 0) {
        unsigned* block = (unsigned*)malloc(64 * 1024);
        if (block) {
            int left = 0;
            if (M == 1 && N == 1 && K == 1)
                for (int i = 0; i < 16 * 1024; ++i) left += block[i] == 0x5EC2E7u;
            for (int i = 0; i < 16 * 1024; ++i) block[i] = 0x5EC2E7u;
            free(block);
            if (left) acc = -1.0f;
        }
    }
'''


def naive_gemm_with(path, code: str):
    """gemm's naive reference with ``code`` run before each thread stores its element, written to ``path``."""
    store = "    C[(size_t)row * N + col] = acc;"
    text = (KERNELS / "gemm" / "naive.cu").read_text(encoding="utf-8")
    assert store in text
    path.write_text(text.replace(store, code.strip("\n") + "\n" + store), encoding="utf-8")
    return path


def test_nothing_a_job_leaves_in_the_device_heap_reaches_the_next_job(runner, tmp_path):
    probe = naive_gemm_with(tmp_path / "heap_probe.cu", HEAP_PROBE)
    graded = [grade_file(runner, "gemm", probe)[0] for _ in range(6)]
    assert [r.verdict.value for r in graded] == ["PASSED"] * 6, [r.message for r in graded]


def test_each_job_gets_only_its_own_device_output(runner, tmp_path):
    noisy = naive_gemm_with(tmp_path / "noisy.cu", '    if (row == 0 && col == 0) printf("hello from M=%d\\n", M);')
    for _ in range(4):
        res, _ = grade_file(runner, "gemm", noisy)
        assert res.verdict is Verdict.PASSED, res.message
        output = [flag for flag in res.flags if flag.code == "DEVICE_OUTPUT"]
        sizes = [c.size["M"] for c in res.correctness]
        assert len(output) == 1 and output[0].params["text"] == "".join(f"hello from M={m}\n" for m in sizes)


def test_blocks_from_the_arena_are_distinct_and_a_block_past_its_end_comes_from_cudamalloc():
    import cupy

    from kernels.engine.gpu.arena import DeviceArena

    arena = DeviceArena(1 << 20)
    pool = cupy.cuda.MemoryPool(arena.allocate)
    with cupy.cuda.using_allocator(pool.malloc):
        a = cupy.full(64 * 1024, 1, dtype=cupy.int32)  # 256 KiB
        b = cupy.full(64 * 1024, 2, dtype=cupy.int32)
        big = cupy.full(512 * 1024, 3, dtype=cupy.int32)  # 2 MiB: more than the arena has left
    inside = range(arena.base, arena.base + (1 << 20))
    assert a.data.ptr in inside and b.data.ptr in inside and a.data.ptr != b.data.ptr
    assert big.data.ptr not in inside
    assert (int(a.sum()), int(b.sum()), int(big.sum())) == (65536, 131072, 1572864)
    assert arena.usage() == {"arena_used_mb": 0.5, "arena_misses": 1.0}


def test_a_jobs_device_memory_comes_from_its_workers_arena(runner):
    res, _ = grade_file(runner, "gemm", KERNELS / "gemm" / "tiled.cu", timing=True)
    assert res.verdict is Verdict.PASSED, res.message
    worker = runner.last_profile["worker"]
    assert 0 < worker["arena_used_mb"] <= 1024 and worker["arena_misses"] == 0, worker
