"""The device a process uses: what it is (``gpu_info``, ``versions``) and how the GPU worker
prepares it before any learner launch (``set_process_limits``, ``start_device``, ``prime_device``).

``gpu_info`` is the one description of a GPU the project records: the GPU worker puts it in every
Result, and the ladder benchmark (kernels/ladder/bench.py) in its results files.

Imports numpy and cupy lazily (only a process that uses the GPU calls these) and the standard
library.
"""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
import time
from collections.abc import Sequence

from ..result import GpuInfo

OUTPUT_FILE_LIMIT = 64 << 20  # bytes any file written in the sandbox's /tmp may reach
CLOCK_RATE_ATTRIBUTE = 13  # cudaDevAttrClockRate (kHz)


def set_process_limits() -> None:
    """Never RLIMIT_AS: CUDA reserves huge virtual ranges. Core dumps off; files small: with
    SIGXFSZ ignored, writes past the limit fail (EFBIG) instead of killing the worker."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    for limit, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, OUTPUT_FILE_LIMIT)):
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            pass


def start_device(printf_bytes: int, heap_bytes: int,
                 startup_ms: dict[str, float] | None = None) -> tuple[GpuInfo, dict[str, str]]:
    """Create the context with small printf/malloc limits (before any launch) and the cuBLAS
    handle, launching nothing (the first launches are ``prime_device``'s, which a spare may be told
    to run at another time). ``startup_ms`` (if given) receives how long the context and handle took."""
    import cupy

    t0 = time.perf_counter()
    runtime = cupy.cuda.runtime
    cupy.cuda.Device(0).use()
    # Limits must be set before the first launch of a kernel that uses printf / malloc.
    runtime.deviceSetLimit(runtime.cudaLimitPrintfFifoSize, int(printf_bytes))
    runtime.deviceSetLimit(runtime.cudaLimitMallocHeapSize, int(heap_bytes))
    t_context = time.perf_counter()
    cupy.cuda.device.get_cublas_handle()  # cublasCreate: allocations, no kernel
    if startup_ms is not None:
        startup_ms["context_ms"] = (t_context - t0) * 1e3
        startup_ms["cublas_ms"] = (time.perf_counter() - t_context) * 1e3
    return gpu_info(), versions()


def prime_device(startup_ms: dict[str, float] | None = None) -> None:
    """The first launches (a memset and a small cuBLAS GEMM, which loads its kernel module), off the
    learner's clock. They are GPU work, so a spare runs them only once no job is being timed."""
    import cupy

    t0 = time.perf_counter()
    warm = cupy.empty((64, 64), dtype=cupy.float32)
    cupy.cuda.runtime.memset(warm.data.ptr, 0, warm.nbytes)
    cupy.matmul(warm, warm)
    cupy.cuda.Device().synchronize()
    if startup_ms is not None:
        startup_ms["prime_ms"] = (time.perf_counter() - t0) * 1e3


def smi_query(fields: Sequence[str]) -> list[dict[str, str]]:
    """nvidia-smi's ``--query-gpu`` for ``fields``: one dict per GPU (values without units), in its
    index order; [] where nvidia-smi is missing or fails. The last field may hold commas (put "name"
    last). The one reader of nvidia-smi the benchmarks use to record clocks before and after they
    time (lent GPUs throttle under long runs)."""
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    rows = [[value.strip() for value in line.split(",", len(fields) - 1)] for line in out.strip().splitlines()]
    return [dict(zip(fields, row, strict=True)) for row in rows if len(row) == len(fields)]


def clocks_line() -> str:
    """Every GPU's index, name and SM clock now and at most, on one line (for a benchmark's log)."""
    rows = smi_query(("index", "clocks.sm", "clocks.max.sm", "name"))
    if not rows:
        return "nvidia-smi not found"
    return "; ".join(f"{r['index']}, {r['name']}, {r['clocks.sm']} MHz (max {r['clocks.max.sm']} MHz)" for r in rows)


def gpu_info(device: int = 0) -> GpuInfo:
    import cupy

    runtime = cupy.cuda.runtime
    props = runtime.getDeviceProperties(device)
    raw_name = props.get("name", b"")
    name = raw_name.decode(errors="replace") if isinstance(raw_name, bytes) else str(raw_name)
    info = GpuInfo(name=name, compute_capability=f"{props.get('major')}.{props.get('minor')}",
                   sm_count=int(props.get("multiProcessorCount", 0)) or None)
    try:
        info.clock_mhz = int(runtime.deviceGetAttribute(CLOCK_RATE_ATTRIBUTE, device)) // 1000
    except Exception:
        pass
    try:
        info.cuda_runtime = _cuda_version(runtime.runtimeGetVersion())
    except Exception:
        pass
    try:
        info.pci_bus_id = str(runtime.deviceGetPCIBusId(device))
    except Exception:
        pass
    info.driver = driver_version()
    return info


def _cuda_version(number: int) -> str:
    return f"{number // 1000}.{(number % 1000) // 10}"


def driver_version() -> str | None:
    try:
        with open("/proc/driver/nvidia/version", encoding="ascii", errors="replace") as fh:
            for word in fh.readline().split():
                if word.count(".") >= 1 and word.replace(".", "").isdigit():
                    return word
    except OSError:
        pass
    try:
        import cupy

        return f"cuda {_cuda_version(cupy.cuda.runtime.driverGetVersion())}"
    except Exception:
        return None


def versions() -> dict[str, str]:
    import cupy
    import numpy

    return {"cupy": str(cupy.__version__), "numpy": str(numpy.__version__),
            "python": ".".join(map(str, sys.version_info[:3]))}
