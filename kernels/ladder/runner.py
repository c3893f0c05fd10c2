"""Load a compiled rung on the GPU and launch it (CuPy). Shared by the benchmark and the GPU tests."""
from __future__ import annotations

from dataclasses import dataclass

import cupy as cp
import numpy as np
from cupy_backends.cuda.api import driver

from . import nvrtc_build
from .rungs import KERNEL_NAME, Rung

STATIC_SMEM_LIMIT = 48 * 1024


@dataclass
class LoadedRung:
    rung: Rung
    module: object
    function: object
    registers: int
    static_smem: int
    local_bytes: int

    @property
    def shared_bytes(self) -> int:
        return self.static_smem + self.rung.smem

    def launch(self, A, B, C, M: int, N: int, K: int) -> None:
        self.function(self.rung.grid(M, N), self.rung.block,
                      (A, B, C, np.int32(M), np.int32(N), np.int32(K)), shared_mem=self.rung.smem)


def load(rung: Rung) -> LoadedRung:
    built = nvrtc_build.build(rung.source, rung.arch, rung.path.name)
    module = cp.cuda.function.Module()
    module.load(built.cubin)
    fn = module.get_function(KERNEL_NAME)
    if rung.smem > STATIC_SMEM_LIMIT:
        # Dynamic shared memory above 48 KB must be opted into per kernel.
        driver.funcSetAttribute(fn.ptr, driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, rung.smem)
    attr = lambda a: int(driver.funcGetAttribute(a, fn.ptr))
    return LoadedRung(rung=rung, module=module, function=fn,
                      registers=attr(driver.CU_FUNC_ATTRIBUTE_NUM_REGS),
                      static_smem=attr(driver.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
                      local_bytes=attr(driver.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES))


def make_inputs(M: int, N: int, K: int, dtype: str, seed: int):
    """Uniform [-1, 1) inputs on the GPU (never zeros). Returns (A, B, A64, B64): the kernel's
    operands and exact float64 copies of them for the reference."""
    rng = cp.random.RandomState(seed)
    A = rng.uniform(-1.0, 1.0, (M, K), dtype=cp.float32)
    B = rng.uniform(-1.0, 1.0, (K, N), dtype=cp.float32)
    if dtype == "f16":
        A, B = A.astype(cp.float16), B.astype(cp.float16)
    return A, B, A.astype(cp.float64), B.astype(cp.float64)


def poisoned_output(M: int, N: int):
    return cp.full((M, N), cp.nan, dtype=cp.float32)


def gpu_available() -> bool:
    try:
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False
