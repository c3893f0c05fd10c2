"""The compile sandbox: what the worker can see, its limits, its deadline, its recycling.

These tests call the compiler directly, i.e. with the source policy switched OFF, to prove the
operating-system sandbox alone keeps the server's files out of reach.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import pytest

from kernels.engine import codes
from kernels.engine.compiler import CompileError, Compiler, CompileWorker, WorkerSettings
from kernels.engine.compiler.cache import CubinCache
from kernels.engine.compiler.sandbox import UNSAFE_ENV, SandboxUnavailable
from kernels.engine.result import Verdict


@pytest.fixture
def canary(tmp_path):
    secret = "CANARY_" + secrets.token_hex(16)
    path = tmp_path / "canary.txt"
    path.write_text(secret + "\n", encoding="utf-8")
    return str(path), secret


def _compile_error(compiler, source, kernel=None) -> CompileError:
    with pytest.raises(CompileError) as info:
        compiler.compile(source, kernel)
    return info.value


@pytest.mark.parametrize("how", ["absolute", "relative", "angle", "digraph", "splice", "macro"])
def test_canary_include_does_not_leak_from_the_sandbox(compiler, canary, how):
    path, secret = canary
    rel = "../" * 12 + path.lstrip("/")
    src = {
        "absolute": f'#include "{path}"\n',
        "relative": f'#include "{rel}"\n',
        "angle": f"#include <{path}>\n",
        "digraph": f'%:include "{path}"\n',
        "splice": f'#inc\\\nlude "{path}"\n',
        "macro": f'#define F "{path}"\n#include F\n',
    }[how]
    src += 'extern "C" __global__ void k(float* p) { p[0] = 1.0f; }\n'
    err = _compile_error(compiler, src)
    assert err.verdict is Verdict.COMPILE_ERROR and err.code == codes.COMPILE_FAILED
    assert "cannot open source file" in err.log
    for text in (err.log, repr(err.params), str(err)):
        assert secret not in text
        if how != "relative":  # a relative path is echoed as the learner typed it
            assert path not in text and os.path.dirname(path) not in text  # no server path


@pytest.mark.parametrize("target", ["/etc/passwd", "/etc/hostname", "/proc/self/environ",
                                    "/proc/self/cmdline", "/root/.bashrc", str(Path(__file__).resolve().parents[2] / "pyproject.toml"),
                                    str(Path(__file__).resolve())])
def test_server_files_are_not_visible(compiler, target):
    err = _compile_error(compiler, f'#include "{target}"\nint x;\n')
    assert "cannot open source file" in err.log
    assert "root:" not in err.log  # /etc/passwd's first line would start with root:


def test_the_worker_runs_with_empty_env_limits_and_no_privileges(compiler):
    compiler.compile('extern "C" __global__ void k(float* p) { p[0] = 2.0f; }\n')
    hello = compiler.worker.hello
    assert compiler.worker.sandboxed
    assert hello["uid"] == 65534  # nobody
    assert hello["pid"] <= 3  # its own PID namespace
    # bwrap --clearenv: only what the interpreter sets itself, nothing from the server
    assert set(hello["environ"]) <= {"LC_CTYPE", "PWD", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
    assert hello["limits"]["RLIMIT_DATA"][0] == compiler.worker.settings.data_bytes
    assert hello["limits"]["RLIMIT_AS"][0] == -1  # never RLIMIT_AS: CUDA needs huge address space
    assert hello["limits"]["RLIMIT_CORE"] == [0, 0]


def test_unsafe_unsandboxed_compile_is_off_by_default(monkeypatch):
    monkeypatch.delenv(UNSAFE_ENV, raising=False)
    assert CompileWorker().sandboxed is True
    monkeypatch.setenv(UNSAFE_ENV, "yes")  # only the exact value 1 switches it on
    assert CompileWorker().sandboxed is True
    monkeypatch.setenv(UNSAFE_ENV, "1")
    assert CompileWorker().sandboxed is False


def test_unsafe_setting_is_off_in_ci():
    if not os.environ.get("CI"):
        pytest.skip("only meaningful where CI is set")
    assert os.environ.get(UNSAFE_ENV, "") != "1", f"{UNSAFE_ENV}=1 must never be set in CI"


def test_unsandboxed_dev_mode_still_compiles(monkeypatch):
    monkeypatch.setenv(UNSAFE_ENV, "1")
    c = Compiler("sm_90", worker=CompileWorker(), cache=CubinCache())
    try:
        k = c.compile('extern "C" __global__ void k(float* p) { p[0] = 3.0f; }\n')
        assert k.sandboxed is False and k.cubin
    finally:
        c.close()


def test_missing_sandbox_means_unavailable_not_a_crash(monkeypatch):
    from kernels.engine.compiler import sandbox

    def no_bwrap():
        raise SandboxUnavailable("BWRAP_MISSING", "test")

    monkeypatch.setattr(sandbox, "bwrap_binary", no_bwrap)
    c = Compiler("sm_90", worker=CompileWorker(WorkerSettings(sandboxed=True)), cache=CubinCache())
    err = _compile_error(c, 'extern "C" __global__ void k(float* p) { p[0] = 4.0f; }\n')
    assert err.verdict is Verdict.UNAVAILABLE
    assert err.code == codes.UNAVAILABLE_NO_SANDBOX and err.params == {"reason": "BWRAP_MISSING"}
    assert c.available() == (False, "BWRAP_MISSING")


def test_bwrap_that_cannot_start_means_unavailable(monkeypatch):
    from kernels.engine.compiler import sandbox

    monkeypatch.setattr(sandbox, "bwrap_binary", lambda: "/bin/false")
    c = Compiler("sm_90", worker=CompileWorker(WorkerSettings(sandboxed=True, startup_s=5)), cache=CubinCache())
    err = _compile_error(c, 'extern "C" __global__ void k(float* p) { p[0] = 5.0f; }\n')
    assert err.verdict is Verdict.UNAVAILABLE and err.params == {"reason": "BWRAP_FAILED"}


# A compile that keeps NVRTC busy for ~10-40 s of CPU with little memory: hundreds of distinct
# constexpr evaluations, each just under EDG's complexity limit.
SLOW_SOURCE = (
    "constexpr unsigned f(unsigned n) { unsigned s = n; for (unsigned i = 0; i < 200000u; i++) "
    "s = s * 1664525u + 1013904223u; return s; }\n"
    "template <unsigned N> struct S { static constexpr unsigned v = f(N); };\n"
    "__device__ unsigned out[] = {" + ", ".join(f"S<{i}>::v" for i in range(1, 400)) + "};\n"
)


def test_a_hanging_compile_hits_the_wall_deadline_and_the_worker_is_recycled():
    worker = CompileWorker(WorkerSettings(sandboxed=True, wall_s=2.0, cpu_s=120))
    c = Compiler("sm_90", worker=worker, cache=CubinCache())
    try:
        c.compile('extern "C" __global__ void k(float* p) { p[0] = 6.0f; }\n')
        first_pid_starts = worker.starts
        t = time.monotonic()
        err = _compile_error(c, SLOW_SOURCE)
        elapsed = time.monotonic() - t
        assert err.verdict is Verdict.COMPILE_ERROR and err.code == codes.COMPILE_TIMEOUT
        assert elapsed < 8, elapsed
        assert not worker.alive()  # killed, process group and all
        k = c.compile('extern "C" __global__ void k(float* p) { p[0] = 7.0f; }\n')
        assert k.cubin and worker.starts == first_pid_starts + 1
        # a timeout is never cached: the same source times out again
        assert _compile_error(c, SLOW_SOURCE).code == codes.COMPILE_TIMEOUT
    finally:
        c.close()


def test_cpu_limit_ends_a_runaway_compile():
    worker = CompileWorker(WorkerSettings(sandboxed=True, wall_s=60.0, cpu_s=1))
    c = Compiler("sm_90", worker=worker, cache=CubinCache())
    try:
        t = time.monotonic()
        err = _compile_error(c, SLOW_SOURCE)
        assert err.code == codes.COMPILE_TIMEOUT
        assert time.monotonic() - t < 20
    finally:
        c.close()


def test_memory_limit_stops_a_compile_that_blows_up():
    # 4^10 copies of "1" from nested macros: ~0.9 GB in NVRTC, against a 600 MiB RLIMIT_DATA
    src = "#define A(x) (x+x+x+x)\n#define L1(x) A(x)\n"
    src += "".join(f"#define L{i + 1}(x) A(L{i}(x))\n" for i in range(1, 10))
    src += "__device__ int v = L10(1);\n"
    worker = CompileWorker(WorkerSettings(sandboxed=True, data_bytes=600 << 20))
    c = Compiler("sm_90", worker=worker, cache=CubinCache())
    try:
        err = _compile_error(c, src)
        assert err.verdict is Verdict.COMPILE_ERROR
        assert err.code == codes.COMPILE_RESOURCE_LIMIT and err.params == {"limit": "memory"}
        assert not worker.alive()  # recycled
        assert c.compile('extern "C" __global__ void k(float* p) { p[0] = 8.0f; }\n').cubin
        assert worker.starts == 2
    finally:
        c.close()


def test_worker_is_recycled_every_n_jobs():
    worker = CompileWorker(WorkerSettings(sandboxed=True, max_jobs=2))
    c = Compiler("sm_90", worker=worker, cache=CubinCache())
    try:
        for i in range(5):
            c.compile(f'extern "C" __global__ void k(float* p) {{ p[0] = {i}.0f; }}\n')
        assert worker.starts == 3  # jobs 1-2, 3-4, 5
    finally:
        c.close()


def test_a_compiles_cpu_and_wall_limits_follow_one_setting(monkeypatch):
    """MKC_COMPILE_CPU_S bounds how long a compile bomb holds a compile slot; the wall clock gets
    twice that plus two seconds (a sandbox start, a busy host)."""
    from kernels.engine.compiler.worker_client import WorkerSettings

    monkeypatch.delenv("MKC_COMPILE_CPU_S", raising=False)
    assert (WorkerSettings().cpu_s, WorkerSettings().wall_s) == (6.0, 14.0)
    monkeypatch.setenv("MKC_COMPILE_CPU_S", "2.5")
    assert (WorkerSettings().cpu_s, WorkerSettings().wall_s) == (2.5, 7.0)


def test_a_compile_jobs_own_cpu_limit_ends_a_bomb_early_and_an_honest_kernel_compiles_under_it(monkeypatch):
    """The pipeline's first slice: a job may ask for less CPU than MKC_COMPILE_CPU_S (never more). A bomb
    given 1 s is ended by the CPU limit (SIGXCPU: the timeout names the job's 1 s, not the configured 60 s
    nor the wall deadline), and the same worker then compiles an honest kernel under that 1 s slice."""
    worker = CompileWorker(WorkerSettings(sandboxed=True, cpu_s=60.0, wall_s=120.0))
    assert worker.limits(1.0) == (1.0, 120.0)  # a slice is a CPU limit; the wall deadline stays the configured one
    assert worker.limits(90.0) == (60.0, 120.0)  # never above the configured limit
    c = Compiler("sm_90", worker=worker, cache=CubinCache())
    try:
        with pytest.raises(CompileError) as caught:
            c.compile(SLOW_SOURCE, cpu_s=1.0)
        err = caught.value
        assert (err.verdict, err.code, err.params) == (Verdict.COMPILE_ERROR, "COMPILE_TIMEOUT", {"seconds": 1.0})
        assert not worker.alive()  # the CPU limit ended it; the next job starts a fresh one
        k = c.compile('extern "C" __global__ void k(float* p) { p[threadIdx.x] = 8.0f; }\n', cpu_s=1.0)
        assert k.cubin[:4] == b"\x7fELF" and not k.cached
    finally:
        c.close()
