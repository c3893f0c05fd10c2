"""grade(): the order of checks, the phases, and what comes back without (and with) a GPU."""

from __future__ import annotations

import json
import types

import pytest

from kernels.engine import codes, grade
from kernels.engine.result import Message, Result, Verdict, json_schema

from .conftest import NAIVE_GEMM
from .schema_check import errors

grade_module = __import__("importlib").import_module("kernels.engine.grade")
LAUNCH = {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(grade_module, "_gpu_module", lambda: None)


def run(exercises_root, compiler, source, launch=LAUNCH, **kw) -> tuple[Result, list[str]]:
    phases: list[str] = []
    result = grade("gemm", source, launch, on_phase=phases.append, compiler=compiler,
                   exercises_root=str(exercises_root), **kw)
    assert errors(json.loads(result.to_json()), json_schema()) == []  # always schema-valid
    assert result.exercise == "gemm"
    return result, phases


def test_without_gpu_the_compile_result_comes_back_unavailable(exercises_root, compiler, no_gpu):
    result, phases = run(exercises_root, compiler, NAIVE_GEMM)
    assert result.verdict is Verdict.UNAVAILABLE
    assert result.message == Message(codes.UNAVAILABLE_NO_GPU, {})
    assert phases == ["validating", "compiling", "done"]
    assert [p.name for p in result.phases] == ["validating", "compiling"]
    assert result.resources.registers > 0 and result.resources.local_bytes == 0
    assert result.launch.grid == [64, 64, 1]  # largest timing size 2048 / 32
    assert result.versions["nvrtc"].startswith("13.") and result.versions["arch"] == "sm_90"


def test_policy_runs_before_compile(exercises_root, compiler, no_gpu):
    result, phases = run(exercises_root, compiler, '#include "/etc/passwd"\n' + NAIVE_GEMM)
    assert result.verdict is Verdict.COMPILE_ERROR
    assert result.message.code == codes.SOURCE_INCLUDE_FORBIDDEN and result.message.params["line"] == 1
    assert "compiling" not in phases and phases[-1] == "done"


def test_size_limit_before_policy(exercises_root, compiler, no_gpu):
    result, _ = run(exercises_root, compiler, "#include <x>\n" + "/" * 70000)
    assert result.message.code == codes.SOURCE_TOO_LARGE


def test_bad_launch_refused_before_compile(exercises_root, compiler, no_gpu):
    result, phases = run(exercises_root, compiler, NAIVE_GEMM, {"block": [64, 32, 1], "tile": [64, 32]})
    assert result.verdict is Verdict.RUNTIME_ERROR
    assert result.message == Message(codes.LAUNCH_TOO_MANY_THREADS, {"threads": 2048, "limit": 1024})
    assert "compiling" not in phases


def test_static_plus_dynamic_shared_memory_checked_after_compile(exercises_root, compiler, no_gpu):
    src = NAIVE_GEMM.replace("{\n", "{\n    __shared__ float s[8192]; s[threadIdx.x] = A[0]; __syncthreads();\n"
                           "    if (s[threadIdx.x ^ 1] == 12345.0f) C[0] = 0.0f;\n", 1)
    result, phases = run(exercises_root, compiler, src, {"block": [32, 32, 1], "tile": [32, 32], "smem": 200 * 1024})
    assert result.message.code == codes.LAUNCH_SMEM_TOTAL_TOO_LARGE
    assert result.resources.shared_bytes == 32768 and "compiling" in phases


def test_compile_error_result(exercises_root, compiler, no_gpu):
    result, _ = run(exercises_root, compiler, NAIVE_GEMM.replace("acc +=", "acc +== "))
    assert result.verdict is Verdict.COMPILE_ERROR and result.message.code == codes.COMPILE_FAILED
    assert "kernel.cu(7): error" in result.compile_log


def test_signature_error_result(exercises_root, compiler, no_gpu):
    result, _ = run(exercises_root, compiler, NAIVE_GEMM.replace('extern "C" ', ""))
    assert result.message.code == codes.COMPILE_NOT_EXTERN_C
    assert result.message.params["expected"].startswith('extern "C" __global__ void gemm(const float* A')


def test_unknown_exercise(compiler, no_gpu, exercises_root):
    result = grade("nope", NAIVE_GEMM, LAUNCH, compiler=compiler, exercises_root=str(exercises_root))
    assert result.verdict is Verdict.UNAVAILABLE and result.message.code == codes.UNAVAILABLE_UNKNOWN_EXERCISE


def test_a_broken_callback_does_not_change_the_verdict(exercises_root, compiler, no_gpu):
    def explode(phase):
        raise RuntimeError("callback bug")

    result = grade("gemm", NAIVE_GEMM, LAUNCH, on_phase=explode, compiler=compiler, exercises_root=str(exercises_root))
    assert result.message.code == codes.UNAVAILABLE_NO_GPU


def test_gpu_part_is_called_with_the_compiled_kernel(exercises_root, compiler, monkeypatch):
    seen = {}

    def run_job(exercise, compiled, plan, on_phase):
        seen.update(exercise=exercise.id, cubin=compiled.cubin[:4], name=compiled.kernel_name, block=plan.block)
        on_phase("checking")
        on_phase("timing")
        return Result(verdict=Verdict.PASSED, message=Message(codes.PASSED, {"sizes": 3}))

    fake = types.SimpleNamespace(gpu_available=lambda: True, run_job=run_job)
    monkeypatch.setattr(grade_module, "_gpu_module", lambda: fake)
    result, phases = run(exercises_root, compiler, NAIVE_GEMM)
    assert seen == {"exercise": "gemm", "cubin": b"\x7fELF", "name": "gemm", "block": (32, 32, 1)}
    assert phases == ["validating", "compiling", "checking", "timing", "done"]
    assert result.verdict is Verdict.PASSED and result.resources is not None and result.launch is not None
    assert [p.name for p in result.phases] == ["validating", "compiling", "checking", "timing"]


def test_gpu_part_failure_is_unavailable_not_a_crash(exercises_root, compiler, monkeypatch):
    def run_job(*a):
        raise RuntimeError("driver exploded")

    monkeypatch.setattr(grade_module, "_gpu_module", lambda: types.SimpleNamespace(gpu_available=lambda: True, run_job=run_job))
    result, _ = run(exercises_root, compiler, NAIVE_GEMM)
    assert result.verdict is Verdict.UNAVAILABLE and result.message == Message(codes.UNAVAILABLE_INTERNAL, {"stage": "gpu"})


def test_gpu_present_but_not_available(exercises_root, compiler, monkeypatch):
    monkeypatch.setattr(grade_module, "_gpu_module", lambda: types.SimpleNamespace(gpu_available=lambda: False))
    result, _ = run(exercises_root, compiler, NAIVE_GEMM)
    assert result.message.code == codes.UNAVAILABLE_NO_GPU


def test_unsandboxed_dev_compile_is_flagged(exercises_root, monkeypatch, no_gpu):
    from kernels.engine.compiler import Compiler, CompileWorker
    from kernels.engine.compiler.cache import CubinCache

    monkeypatch.setenv("MKC_UNSAFE_UNSANDBOXED_COMPILE", "1")
    c = Compiler("sm_90", worker=CompileWorker(), cache=CubinCache())
    try:
        result, _ = run(exercises_root, c, NAIVE_GEMM)
    finally:
        c.close()
    assert Message(codes.FLAG_UNSANDBOXED_COMPILE, {}) in result.flags
    assert result.message.code == codes.UNAVAILABLE_NO_GPU


def test_versions_are_reported(exercises_root, compiler, no_gpu):
    result, _ = run(exercises_root, compiler, NAIVE_GEMM)
    assert {"engine", "python", "nvrtc", "arch", "cupy"} <= set(result.versions)
