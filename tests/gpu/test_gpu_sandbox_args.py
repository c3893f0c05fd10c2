"""What the GPU worker is started with, as literal values (gpu/sandbox.py, gpu/worker_process.py): /proc
mounted (CUDA reads it) with an environment of only the listed variables, and the device limits the
worker sets before any launch: a 64 KiB printf FIFO and a 1 MiB device heap (not CUDA's 8 MiB), and the
one device allocation (1 GiB) it makes for its job's blocks while it warms up."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def test_the_gpu_sandbox_mounts_proc_and_sets_only_the_listed_environment(monkeypatch):
    from kernels.engine.gpu import sandbox

    monkeypatch.setenv("MKC_SECRET_KEY", "do-not-pass")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    args = sandbox.bwrap_args()
    assert "--proc /proc" in " ".join(args)
    env = {args[i + 1]: args[i + 2] for i, a in enumerate(args) if a == "--setenv"}
    assert set(env) == {"PATH", "HOME", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "CUPY_CACHE_DIR", "LD_LIBRARY_PATH",
                        "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUDA_DEVICE_MAX_CONNECTIONS"}
    assert (env["PATH"], env["HOME"], env["CUDA_DEVICE_MAX_CONNECTIONS"]) == ("/usr/bin:/bin", "/tmp", "1")


def test_the_worker_is_told_a_64_kib_printf_fifo_a_1_mib_heap_and_a_1_gib_arena():
    from kernels.engine.gpu import sandbox
    from kernels.engine.gpu.worker_process import Limits

    opts = Limits().worker_opts()
    assert opts == {"printf_bytes": 65536, "heap_bytes": 1048576, "arena_bytes": 1073741824}
    cmd = sandbox.worker_command({**opts, "deferred": False}, 7, sandboxed=False)
    assert cmd[-4:-1] == ["-m", "kernels.engine.gpu.worker", "7"]
    assert json.loads(cmd[-1]) == {"printf_bytes": 65536, "heap_bytes": 1048576, "arena_bytes": 1073741824,
                                   "deferred": False}


def test_a_started_worker_gets_its_limits_device_options(monkeypatch):
    from kernels.engine.gpu import sandbox
    from kernels.engine.gpu.worker_process import Limits, new_worker

    seen = []
    fake = Path(__file__).with_name("fake_worker.py")

    def command(opts, fd, sandboxed):
        seen.append(opts)
        return [sys.executable, str(fake), str(fd), "ok"]

    monkeypatch.setattr(sandbox, "worker_command", command)
    worker = new_worker(Limits(printf_bytes=4096, heap_bytes=2 << 20, arena_bytes=0), deferred=True)
    worker.kill()
    assert seen == [{"printf_bytes": 4096, "heap_bytes": 2097152, "arena_bytes": 0, "deferred": True}]
