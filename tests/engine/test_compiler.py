"""Real NVRTC compiles (CPU only): line numbers, the signature check, resources, logs, cache."""

from __future__ import annotations

import pytest

from kernels.engine import codes
from kernels.engine.compiler import CompileError, Compiler, CompileWorker, WorkerSettings
from kernels.engine.compiler.cache import CubinCache
from kernels.engine.compiler.logs import LOG_CAP_BYTES, learner_log, parse_ptxas_resources, scrub_paths
from kernels.engine.result import Verdict

from .conftest import NAIVE_GEMM

EXPECTED_DECL = 'extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)'


def compile_error(compiler, source, kernel=None, **kw) -> CompileError:
    with pytest.raises(CompileError) as info:
        compiler.compile(source, kernel, **kw)
    assert info.value.verdict is Verdict.COMPILE_ERROR
    return info.value


def test_naive_gemm_compiles_to_a_cubin_with_resources(compiler, gemm_exercise):
    k = compiler.compile(NAIVE_GEMM, gemm_exercise.kernel)
    assert k.kernel_name == "gemm" and k.arch == "sm_90"
    assert k.cubin[:4] == b"\x7fELF"
    assert ".entry gemm(" in k.ptx and ".target sm_90" in k.ptx
    assert set(k.resources) >= {"registers", "shared_bytes", "local_bytes"}
    assert 8 <= k.resources["registers"] <= 64
    assert k.resources["shared_bytes"] == 0 and k.resources["local_bytes"] == 0
    assert k.log == "" and k.sandboxed


def test_resources_see_shared_memory_and_spills(compiler):
    src = """extern "C" __global__ void k(const float* a, float* out, int n) {
    __shared__ float tile[64][65];
    volatile float big[300];
    for (int i = 0; i < 300; ++i) big[i] = a[(i * 7 + threadIdx.x) % n];
    tile[threadIdx.y % 64][threadIdx.x % 65] = big[threadIdx.x % 300];
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x % 64][(threadIdx.x + 1) % 65];
}
"""
    k = compiler.compile(src)
    assert k.kernel_name == "k"
    assert k.resources["shared_bytes"] == 64 * 65 * 4
    assert k.resources["local_bytes"] >= 300 * 4  # the volatile array lives in local memory


@pytest.mark.parametrize("body_line, expected_line", [(1, 3), (5, 7)])
def test_errors_carry_the_learners_line_numbers(compiler, gemm_exercise, body_line, expected_line):
    lines = ["// comment"] * body_line
    src = "\n".join(lines) + "\n\n" + "int broken = ;\n" + NAIVE_GEMM
    err = compile_error(compiler, src, gemm_exercise.kernel)
    assert err.code == codes.COMPILE_FAILED
    assert err.params["first_line"] == expected_line
    assert f"kernel.cu({expected_line}): error" in err.log
    # nothing of the engine's own code shows
    assert "signature_check" not in err.log and "__mkc" not in err.log


def _need_headers(*names):
    from kernels.engine.compiler.sandbox import available_headers, find_toolchain

    have = available_headers(find_toolchain())
    for name in names or ("cuda_fp16.h",):
        if name not in have:
            pytest.skip(f"{name} not installed here (CUDA header wheels nvidia-cuda-runtime/-crt 13.0)")


def test_line_numbers_stay_exact_with_a_header_prelude(compiler):
    _need_headers()
    src = "\n\n__half h;\nint x = ;\n"
    err = compile_error(compiler, src, headers=("cuda_fp16.h",))
    assert err.params["first_line"] == 4 and "kernel.cu(4): error" in err.log


def test_header_paths_are_scrubbed_from_logs(compiler):
    _need_headers()
    src = 'extern "C" __global__ void k(float* p) { __half h = __float2half(p[0]); p[1] = __half2float(__hadd(h, "x")); }\n'
    err = compile_error(compiler, src, headers=("cuda_fp16.h",))
    assert "cuda_fp16.h(" in err.log  # the note about the overload is still useful
    tc_include = compiler.worker.toolchain.include_dir
    assert tc_include not in err.log and "site-packages" not in err.log and "/usr/" not in err.log


@pytest.mark.parametrize("header, body", [
    ("cuda_fp16.h", "__half h = __float2half(p[0]); p[1] = __half2float(__hmul(h, h));"),
    ("cuda_bf16.h", "__nv_bfloat16 h = __float2bfloat16(p[0]); p[1] = __bfloat162float(h);"),
    ("mma.h", "using namespace nvcuda; wmma::fragment<wmma::accumulator, 16, 16, 16, float> c; "
              "wmma::fill_fragment(c, 0.0f); wmma::store_matrix_sync(p, c, 16, wmma::mem_row_major);"),
])
def test_every_allowed_header_compiles_through_the_prelude(compiler, header, body):
    _need_headers(header)
    from kernels.engine.headers import ALLOWED_HEADERS

    assert header in ALLOWED_HEADERS
    k = compiler.compile('extern "C" __global__ void k(float* p) { ' + body + " }\n", headers=(header,))
    assert k.kernel_name == "k"


def test_missing_header_is_unavailable_not_a_compile_error(compiler, monkeypatch):
    from kernels.engine.compiler import service

    monkeypatch.setattr(service, "available_headers", lambda tc: ())
    with pytest.raises(CompileError) as info:
        compiler.compile('extern "C" __global__ void k(float* p) { }\n', headers=("cuda_fp16.h",))
    assert info.value.verdict is Verdict.UNAVAILABLE
    assert info.value.params == {"reason": "CUDA_HEADERS_MISSING"}


def test_headers_outside_the_list_are_refused():
    from kernels.engine.headers import prelude

    with pytest.raises(ValueError):
        prelude(["stdio.h"])


def test_ptxas_errors_are_compile_errors(compiler, gemm_exercise):
    src = NAIVE_GEMM.replace("{\n", "{\n    __shared__ float s[20000]; s[threadIdx.x] = 0; __syncthreads(); A += (int)s[1];\n", 1)
    src = src.replace("const float* A", "float* A", 1)
    err = compile_error(compiler, src, gemm_exercise.kernel)
    assert err.code == codes.COMPILE_FAILED
    assert "too much shared data" in err.log


# ---- the signature check -----------------------------------------------------------------

SIG = "(const float* A, const float* B, float* C, int M, int N, int K)"


@pytest.mark.parametrize("declaration", [
    'extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)',
    'extern "C" __global__ void gemm(float* A, float* B, float* C, int M, int N, int K)',
    'extern "C" __global__ void gemm(float* x, const float* y, float* z, int a, int b, int c)',
    'extern "C" __global__ void gemm(const float* __restrict__ A, const float* __restrict__ B, '
    'float* __restrict__ C, const int M, const int N, const int K)',
    'extern "C" __global__ void __launch_bounds__(256) gemm(const float* A, const float* B, float* C, int M, int N, int K)',
    'extern "C" {\n__global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K) { }\n}',
    'extern "C" __global__ void gemm(const float*, const float*, float*, int, int, int);\n'
    'extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)',
])
def test_accepted_declarations(compiler, gemm_exercise, declaration):
    body = "" if declaration.endswith("}") else " { if (blockIdx.x == 7) __trap(); }"
    k = compiler.compile(declaration + body + "\n", gemm_exercise.kernel)
    assert k.kernel_name == "gemm"


MISMATCH = codes.COMPILE_SIGNATURE_MISMATCH


@pytest.mark.parametrize("declaration, code", [
    ('extern "C" __global__ void gemm(const float* A, const float* B, double* C, int M, int N, int K)', MISMATCH),
    ('extern "C" __global__ void gemm(const float* A, const float* B, const float* C, int M, int N, int K)', MISMATCH),
    ('extern "C" __global__ void gemm(const double* A, const float* B, float* C, int M, int N, int K)', MISMATCH),
    ('extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N)', MISMATCH),
    ('extern "C" __global__ void gemm(const float* A, const float* B, float* C, long M, int N, int K)', MISMATCH),
    ('extern "C" __global__ void gemm(const float* A, const float* B, float* C, unsigned M, int N, int K)', MISMATCH),
    ('extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K, int extra)', MISMATCH),
    ('extern "C" __global__ void gemm(float A[], const float* B, float** C, int M, int N, int K)', MISMATCH),
    ('__global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)', codes.COMPILE_NOT_EXTERN_C),
    ('extern "C" __device__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)', codes.COMPILE_NOT_GLOBAL),
    ('extern "C" void gemm(const float* A, const float* B, float* C, int M, int N, int K)', codes.COMPILE_NOT_GLOBAL),
    ('extern "C" __global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)', codes.COMPILE_KERNEL_MISSING),
    ('extern "C" __global__ void GEMM(const float* A, const float* B, float* C, int M, int N, int K)', codes.COMPILE_KERNEL_MISSING),
    ('template <int T> __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)', MISMATCH),
])
def test_rejected_declarations_state_the_expected_one(compiler, gemm_exercise, declaration, code):
    src = declaration + " { }\n"
    err = compile_error(compiler, src, gemm_exercise.kernel)
    assert err.code == code, err.log
    assert err.params == {"name": "gemm", "expected": EXPECTED_DECL}
    assert "signature_check" not in err.log and "__nv_name_map" not in err.log


def test_float_array_parameter_is_a_pointer(compiler, gemm_exercise):
    # `float A[]` decays to `float*` in a function type, so it is the same signature
    compiler.compile('extern "C" __global__ void gemm(float A[], const float* B, float* C, int M, int N, int K) { }\n',
                     gemm_exercise.kernel)


def test_overloads_are_refused(compiler, gemm_exercise):
    src = NAIVE_GEMM + "__global__ void gemm(float* a) { }\n"
    err = compile_error(compiler, src, gemm_exercise.kernel)
    assert err.code in (codes.COMPILE_SIGNATURE_MISMATCH, codes.COMPILE_FAILED)


# ---- cache ---------------------------------------------------------------------------------

def test_cache_hits_in_memory_and_on_disk(tmp_path, gemm_exercise):
    disk = tmp_path / "cubins"
    worker = CompileWorker(WorkerSettings(sandboxed=True))
    a = Compiler("sm_90", worker=worker, cache=CubinCache(disk_dir=str(disk)))
    try:
        first = a.compile(NAIVE_GEMM, gemm_exercise.kernel)
        again = a.compile(NAIVE_GEMM, gemm_exercise.kernel)
        assert not first.cached and again.cached and again.cubin == first.cubin
        assert worker.starts == 1
        # a different source, option or architecture is a different key
        other = a.compile(NAIVE_GEMM + "\n", gemm_exercise.kernel)
        assert not other.cached and other.key != first.key
        err1 = compile_error(a, "int x = ;\n")
        err2 = compile_error(a, "int x = ;\n")  # compile errors are cached too
        assert err1.log == err2.log
        assert any(disk.rglob("*.cubin"))
    finally:
        a.close()
    # a new process (a new Compiler) finds the cubin on disk without starting a worker
    worker_b = CompileWorker(WorkerSettings(sandboxed=True))
    b = Compiler("sm_90", worker=worker_b, cache=CubinCache(disk_dir=str(disk)))
    hit = b.compile(NAIVE_GEMM, gemm_exercise.kernel)
    assert hit.cached and hit.cubin == first.cubin and hit.resources == first.resources
    assert worker_b.starts == 0
    c = Compiler("sm_90", worker=worker_b, cache=CubinCache(disk_dir=str(disk)), lineinfo=True)
    try:
        assert not c.compile(NAIVE_GEMM, gemm_exercise.kernel).cached
    finally:
        c.close()


def test_memory_cache_is_bounded():
    cache = CubinCache(max_entries=2)
    for i in range(5):
        cache.put(str(i), {"ok": True}, b"x")
    assert len(cache) == 2 and cache.get("0") is None and cache.get("4") is not None


def test_other_architectures(compiler):
    c = Compiler("sm_80", worker=compiler.worker, cache=CubinCache())
    k = c.compile('extern "C" __global__ void k(float* p) { p[0] = 1.0f; }\n')
    assert ".target sm_80" in k.ptx
    with pytest.raises(ValueError):
        Compiler("sm_90; rm -rf /")


# ---- log helpers (pure functions) -----------------------------------------------------------

def test_log_is_capped():
    raw = "".join(f"kernel.cu({i}): error: identifier \"x{i}\" is undefined\n  x{i} = 1;\n  ^\n\n" for i in range(1, 2000))
    out = learner_log(raw)
    assert out.truncated and len(out.text.encode()) <= LOG_CAP_BYTES
    assert out.text.endswith("[...]\n")
    assert len(out.learner_errors) == 1999


def test_scrub_paths_keeps_learner_code():
    text = ('/root/.venv/lib/python3.12/site-packages/nvidia/cu13/include/cuda_fp16.hpp(12): note\n'
            '  x = a/b/c; y = "/usr/local/cuda/include/x.h"; z = 1 / 2;\n'
            '/work/main/data/app.db and /tmp/pytest-1/x.txt and /proc/self/environ')
    out = scrub_paths(text)
    assert out.splitlines()[0] == "cuda_fp16.hpp(12): note"
    assert "a/b/c" in out and "1 / 2" in out and '"x.h"' in out
    for secret in ("/root", "/work", "/tmp", "/proc", "site-packages"):
        assert secret not in out


def test_parse_ptxas_resources_picks_the_right_entry():
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'helper' for 'sm_90'
ptxas info    : Function properties for helper
ptxas         .     16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 100 bytes smem, 360 bytes cmem[0]
ptxas info    : Compiling entry function 'gemm' for 'sm_90'
ptxas info    : Function properties for gemm
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 8192 bytes smem, 380 bytes cmem[0]
"""
    assert parse_ptxas_resources(log, "gemm") == {
        "registers": 40, "shared_bytes": 8192, "local_bytes": 0, "spill_store_bytes": 0,
        "spill_load_bytes": 0, "constant_bytes": 380}
    assert parse_ptxas_resources(log, "helper")["spill_load_bytes"] == 8
    assert parse_ptxas_resources(log, "absent") is None
