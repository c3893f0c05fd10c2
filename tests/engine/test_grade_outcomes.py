"""grade()'s outcomes that the order-of-checks tests (test_grade.py) do not pin down, with literal
values: shared memory over the limit once the compile says how much is static is a launch problem
(RUNTIME_ERROR, like every launch refusal), spilled registers are flagged for loads as for stores,
and the GPU part's flags are kept beside the compile's (each once). Also the launch limit of 1024
threads at its boundary, and booleans as numbers in a Result."""

from __future__ import annotations

import types

import pytest

from kernels.engine import grade
from kernels.engine.compiler import CompiledKernel
from kernels.engine.launch import LaunchRejected, parse_launch
from kernels.engine.result import Message, Result, Verdict, safe_number

from .conftest import NAIVE_GEMM

grade_module = __import__("importlib").import_module("kernels.engine.grade")
LAUNCH = {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}


class FakeCompiler:
    """What grade() uses of a Compiler, giving a kernel with the resources a test needs."""

    arch = "sm_90"
    worker = types.SimpleNamespace(sandboxed=True)

    def __init__(self, **resources: int):
        self.resources = {"registers": 40, "shared_bytes": 0, "local_bytes": 0, **resources}

    def compile(self, text, kernel, headers=()):
        return CompiledKernel(cubin=b"\x7fELF", ptx="", kernel_name="gemm", arch="sm_90",
                              resources=dict(self.resources), log="", cached=True)


def _grade(exercises_root, compiler, launch=LAUNCH):
    return grade("gemm", NAIVE_GEMM, launch, compiler=compiler, exercises_root=str(exercises_root))


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(grade_module, "_gpu_module", lambda: None)


def test_static_and_dynamic_shared_memory_over_the_limit_is_a_runtime_error(exercises_root, no_gpu):
    result = _grade(exercises_root, FakeCompiler(shared_bytes=32768),
                    {"block": [32, 32, 1], "tile": [32, 32], "smem": 200 * 1024})
    assert result.verdict is Verdict.RUNTIME_ERROR
    assert result.message == Message("LAUNCH_SMEM_TOTAL_TOO_LARGE",
                                      {"smem": 204800, "static": 32768, "limit": 232448})
    assert result.resources.shared_bytes == 32768


@pytest.mark.parametrize("store,load", [(0, 8), (16, 0), (4, 4)])
def test_spilled_registers_are_flagged_for_loads_and_stores(exercises_root, no_gpu, store, load):
    result = _grade(exercises_root, FakeCompiler(spill_store_bytes=store, spill_load_bytes=load))
    spill = [f for f in result.flags if f.code == "REGISTER_SPILL"]
    assert spill == [Message("REGISTER_SPILL", {"spill_store_bytes": store, "spill_load_bytes": load})]


def test_no_spill_no_flag(exercises_root, no_gpu):
    result = _grade(exercises_root, FakeCompiler(spill_store_bytes=0, spill_load_bytes=0))
    assert "REGISTER_SPILL" not in [f.code for f in result.flags]


def test_the_gpu_parts_flags_are_kept_beside_the_compiles_each_once(exercises_root, monkeypatch):
    def run_job(exercise, compiled, plan, on_phase):
        return Result(verdict=Verdict.PASSED, message=Message("PASSED", {"sizes": 3}),
                      flags=[Message("NOISY_TIMING", {"rse": 0.05, "size": {"M": 2048}}),
                             Message("CACHED_COMPILE", {})])

    monkeypatch.setattr(grade_module, "_gpu_module",
                        lambda: types.SimpleNamespace(gpu_available=lambda: True, run_job=run_job))
    monkeypatch.setattr("kernels.engine.insight.grading.begin", lambda *a, **k: None)
    monkeypatch.setattr("kernels.engine.insight.grading.complete", lambda *a, **k: None)
    result = _grade(exercises_root, FakeCompiler(spill_store_bytes=8, spill_load_bytes=8))
    assert result.verdict is Verdict.PASSED
    assert sorted(f.code for f in result.flags) == ["CACHED_COMPILE", "NOISY_TIMING", "REGISTER_SPILL"]


def test_1024_threads_per_block_are_allowed_and_1025_are_not():
    assert parse_launch({"block": [32, 32, 1], "tile": [32, 32]}).threads == 1024
    with pytest.raises(LaunchRejected) as info:
        parse_launch({"block": [5, 5, 41], "tile": [32, 32]})
    assert info.value.code == "LAUNCH_TOO_MANY_THREADS"
    assert info.value.params == {"threads": 1025, "limit": 1024}


def test_booleans_are_written_as_integers():
    assert safe_number(True) == 1 and type(safe_number(True)) is int
    assert safe_number(False) == 0 and type(safe_number(False)) is int
