"""Where a GPU worker's driver start-up goes, and how many of them one host can start per second:
what bounds grading workers per host, since every job runs in a fresh sandboxed process.

    python -m kernels.engine.gpu.bench_driver [--gpus 4] [--per-gpu 8]

Two ways to get a fresh CUDA context, each in the GPU worker's sandbox (sandbox.py) and through the
driver API alone (ctypes on libcuda: no CuPy, nothing cached):

- ``fresh``: a new process per context, as grading does today: ``cuInit``, ``cuCtxCreate``, a
  64 MiB allocation, ``cuCtxDestroy``, exit;
- ``recycle``: one live process making and destroying ``--per-gpu`` contexts in turn (what a worker
  that outlived its job would pay per job instead).

Each runs on GPU 0 alone, then on GPUs 0..N-1 at once (one sandbox per GPU, bound with
CUDA_VISIBLE_DEVICES). Printed: the GPU's name and clocks before and after, the medians (ms) of each
step and the PCI bus id each child ran on, and the host-wide rate (contexts per second, all GPUs together) when N make them at once:
with one fresh process per job, that rate caps the host's jobs per second whatever the GPUs do.
Also printed: whether a kernel could read the worker's host memory through plain pointers
(``CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS``; 0 means it faults instead).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .device import clocks_line

MODULE = "kernels.engine.gpu.bench_driver"  # run by name inside the sandbox (as a script it is __main__)
PAGEABLE_MEMORY_ACCESS = 88  # CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS
ALLOCATION = 64 << 20


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1e3


class DriverError(RuntimeError):
    pass


class Driver:
    """The few libcuda calls measured here, each checked."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.device = ctypes.c_int(0)

    def call(self, name: str, *args: Any) -> None:
        status = getattr(self.lib, name)(*args)
        if status != 0:
            raise DriverError(f"{name} returned CUresult {status}")

    def init(self) -> None:
        self.call("cuInit", 0)
        self.call("cuDeviceGet", ctypes.byref(self.device), 0)

    def pci_bus_id(self) -> str:
        text = ctypes.create_string_buffer(32)
        self.call("cuDeviceGetPCIBusId", text, len(text), self.device)
        return text.value.decode()

    def attribute(self, number: int) -> int:
        value = ctypes.c_int(-1)
        self.call("cuDeviceGetAttribute", ctypes.byref(value), number, self.device)
        return value.value

    def context(self) -> dict[str, float]:
        """Make a context, allocate in it, destroy it: the ms of each step."""
        t0 = time.perf_counter()
        ctx = ctypes.c_void_p()
        self.call("cuCtxCreate_v2", ctypes.byref(ctx), 0, self.device)
        steps = {"context_ms": _ms(t0)}
        t1 = time.perf_counter()
        pointer = ctypes.c_uint64()
        self.call("cuMemAlloc_v2", ctypes.byref(pointer), ctypes.c_size_t(ALLOCATION))
        self.call("cuMemFree_v2", pointer)
        steps["alloc_ms"] = _ms(t1)
        t2 = time.perf_counter()
        self.call("cuCtxDestroy_v2", ctx)
        steps["destroy_ms"] = _ms(t2)
        return steps


def child(kind: str, count: int) -> dict[str, Any]:
    """Inside the sandbox: one fresh start (``fresh``) or ``count`` contexts in turn (``recycle``)."""
    t0 = time.perf_counter()
    driver = Driver()
    driver.init()
    out: dict[str, Any] = {"init_ms": _ms(t0), "pci_bus_id": driver.pci_bus_id(),
                           "pageable_memory_access": driver.attribute(PAGEABLE_MEMORY_ACCESS)}
    rounds = [driver.context() for _ in range(1 if kind == "fresh" else count)]
    out.update({key: statistics.median(r[key] for r in rounds) for key in rounds[0]})
    return out


def sandboxed(kind: str, count: int, gpu: int) -> list[str]:
    """The child's command line in the GPU worker's sandbox, bound to ``gpu`` like a grading worker."""
    from . import sandbox

    return sandbox.module_command(MODULE, ["--child", kind, "--per-gpu", str(count)], gpu=str(gpu))


def run_child(kind: str, count: int, gpu: int) -> dict[str, Any]:
    from .sandbox import SandboxUnavailable

    t0 = time.perf_counter()
    try:
        command = sandboxed(kind, count, gpu)
    except SandboxUnavailable as exc:
        raise SystemExit(f"no GPU sandbox here: {exc}") from None
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"GPU {gpu}: the sandboxed {kind} process failed (rc {proc.returncode}): "
                         f"{(proc.stdout + proc.stderr)[-1500:]}")
    out: dict[str, Any] = json.loads(lines[-1])
    out["process_ms"] = _ms(t0)
    return out


def series(kind: str, gpus: int, per_gpu: int) -> tuple[dict[int, dict[str, Any]], float]:
    """``kind`` on GPUs 0..gpus-1 at once: each GPU's medians, and contexts per second over the host."""

    def on(gpu: int) -> list[dict[str, Any]]:
        if kind == "fresh":
            return [run_child(kind, 1, gpu) for _ in range(per_gpu)]
        return [run_child(kind, per_gpu, gpu)]

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=gpus) as pool:
        per = dict(zip(range(gpus), pool.map(on, range(gpus)), strict=True))
    wall_s = time.perf_counter() - t0
    medians = {gpu: {key: (round(statistics.median(float(r[key]) for r in rows), 1) if key != "pci_bus_id"
                           else ",".join(sorted({str(r[key]) for r in rows}))) for key in rows[0]}
               for gpu, rows in per.items()}
    return medians, gpus * per_gpu / wall_s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--gpus", type=int, default=4, help="GPUs starting contexts at once (default 4)")
    ap.add_argument("--per-gpu", type=int, default=8, help="contexts per GPU in each series (default 8)")
    ap.add_argument("--child", choices=("fresh", "recycle"), help=argparse.SUPPRESS)  # inside the sandbox
    args = ap.parse_args(argv)
    if args.per_gpu < 1 or args.gpus < 1:
        ap.error("--gpus and --per-gpu must be at least 1")
    if args.child:
        try:
            print(json.dumps(child(args.child, args.per_gpu)), flush=True)
        except (OSError, DriverError) as exc:  # no driver here, or no GPU behind it
            print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
            return 3
        return 0
    print(f"before: {clocks_line()}")
    for kind in ("fresh", "recycle"):
        alone, _ = series(kind, 1, args.per_gpu)
        print(f"{kind}, GPU 0 alone: {json.dumps(alone[0])}")
        together, rate = series(kind, args.gpus, args.per_gpu)
        for gpu, medians in together.items():
            print(f"{kind}, GPU {gpu} with {args.gpus} at once: {json.dumps(medians)}")
        print(f"{kind}: {rate:.1f} contexts per second over the host with {args.gpus} GPUs at once")
    print(f"after: {clocks_line()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
