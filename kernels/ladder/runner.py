"""Load a compiled rung on the GPU and launch it (CuPy). Shared by the benchmark and the GPU tests."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

import cupy as cp
import numpy as np
from cupy_backends.cuda.api import driver

from . import nvrtc_build
from .rungs import KERNEL_NAME, Rung

STATIC_SMEM_LIMIT = 48 * 1024


@dataclass
class LoadedRung:
    rung: Rung
    module: Any     # cupy.RawModule and its RawKernel (CuPy ships no type information)
    function: Any
    registers: int
    static_smem: int
    local_bytes: int

    sm_count: int = 0
    _maps: dict[tuple[int, ...], Any] = field(default_factory=dict)  # (A, B, M, N, K) -> its two tensor maps

    @property
    def shared_bytes(self) -> int:
        return self.static_smem + self.rung.smem

    def launch(self, A: Any, B: Any, C: Any, M: int, N: int, K: int) -> None:
        grid = self.rung.grid(M, N, self.sm_count)
        if self.rung.tma is None:
            self.function(grid, self.rung.block,
                          (A, B, C, np.int32(M), np.int32(N), np.int32(K)), shared_mem=self.rung.smem)
            return
        # Two more by-value parameters (CUtensorMap, 128 bytes each): CuPy's kernel call passes only
        # arrays and scalars, so these rungs go through the driver's cuLaunchKernel directly.
        key = (A.data.ptr, B.data.ptr, M, N, K)
        if key not in self._maps:
            self._maps.clear()
            (abx, aby), (bbx, bby) = self.rung.tma
            if K % 8 == 0 and N % 8 == 0:     # a tensor map needs 16-byte row strides
                self._maps[key] = (tensor_map_2d(A.data.ptr, M, K, abx, aby), tensor_map_2d(B.data.ptr, K, N, bbx, bby))
            else:                            # the kernel copies by hand and never reads the maps
                self._maps[key] = (_aligned_map_buffer(), _aligned_map_buffer())
        (bufA, addrA), (bufB, addrB) = self._maps[key]
        values = [ctypes.c_uint64(A.data.ptr), ctypes.c_uint64(B.data.ptr), ctypes.c_uint64(C.data.ptr),
                  ctypes.c_int32(M), ctypes.c_int32(N), ctypes.c_int32(K)]
        params = (ctypes.c_void_p * 8)(*[ctypes.addressof(v) for v in values], addrA, addrB)
        driver.launchKernel(self.function.ptr, *grid, *self.rung.block, self.rung.smem,
                            cp.cuda.get_current_stream().ptr, ctypes.addressof(params), 0)


# ------------------------------------------------------------------------------- TMA tensor maps
# cuTensorMapEncodeTiled from the CUDA driver library, through ctypes: CuPy exposes cuLaunchKernel
# (cupy_backends.cuda.api.driver.launchKernel) but not the tensor-map encoder, and the image's
# Python has no cuda-python bindings to rely on. Enum values from cuda.h (CUDA 12/13).
CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6
CU_TENSOR_MAP_INTERLEAVE_NONE = 0
CU_TENSOR_MAP_SWIZZLE_128B = 3
CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3
CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0      # out-of-bounds elements of a box arrive as zeros
_libcuda = None


def _aligned_map_buffer() -> tuple[ctypes.Array[ctypes.c_char], int]:
    """128 zero bytes at a 64-byte-aligned address (cuTensorMapEncodeTiled requires it)."""
    buf = ctypes.create_string_buffer(128 + 64)
    addr = (ctypes.addressof(buf) + 63) & ~63
    return buf, addr


def tensor_map_2d(ptr: int, rows: int, cols: int, box_cols: int, box_rows: int) -> tuple[ctypes.Array[ctypes.c_char], int]:
    """Tensor map of a row-major rows×cols float16 matrix at device address ptr, copied in boxes of
    box_rows × box_cols with the 128-byte swizzle (wgmma's layout). Returns (buffer, address)."""
    global _libcuda
    if _libcuda is None:
        _libcuda = ctypes.CDLL("libcuda.so.1")
        _libcuda.cuTensorMapEncodeTiled.restype = ctypes.c_int
    buf, addr = _aligned_map_buffer()
    u64, u32 = ctypes.c_uint64, ctypes.c_uint32
    res = _libcuda.cuTensorMapEncodeTiled(
        ctypes.c_void_p(addr), ctypes.c_int(CU_TENSOR_MAP_DATA_TYPE_FLOAT16), u32(2), ctypes.c_void_p(ptr),
        (u64 * 2)(cols, rows), (u64 * 1)(cols * 2), (u32 * 2)(box_cols, box_rows), (u32 * 2)(1, 1),
        ctypes.c_int(CU_TENSOR_MAP_INTERLEAVE_NONE), ctypes.c_int(CU_TENSOR_MAP_SWIZZLE_128B),
        ctypes.c_int(CU_TENSOR_MAP_L2_PROMOTION_L2_256B), ctypes.c_int(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
    if res != 0:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed (CUresult {res}) for {rows}x{cols}, box {box_rows}x{box_cols}")
    return buf, addr


def load(rung: Rung) -> LoadedRung:
    built = nvrtc_build.build(rung.source, rung.arch, rung.path.name)
    module = cp.cuda.function.Module()
    module.load(built.cubin)
    fn = module.get_function(KERNEL_NAME)
    if rung.smem > STATIC_SMEM_LIMIT:
        # Dynamic shared memory above 48 KB must be opted into per kernel.
        driver.funcSetAttribute(fn.ptr, driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, rung.smem)
    def attr(a: int) -> int:
        return int(driver.funcGetAttribute(a, fn.ptr))
    sm_count = int(cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["multiProcessorCount"])
    return LoadedRung(rung=rung, module=module, function=fn, sm_count=sm_count,
                      registers=attr(driver.CU_FUNC_ATTRIBUTE_NUM_REGS),
                      static_smem=attr(driver.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
                      local_bytes=attr(driver.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES))


def make_inputs(M: int, N: int, K: int, dtype: str, seed: int) -> tuple[Any, Any, Any, Any]:  # CuPy arrays
    """Uniform [-1, 1) inputs on the GPU (never zeros). Returns (A, B, A64, B64): the kernel's
    operands and exact float64 copies of them for the reference."""
    rng = cp.random.RandomState(seed)
    A = rng.uniform(-1.0, 1.0, (M, K), dtype=cp.float32)
    B = rng.uniform(-1.0, 1.0, (K, N), dtype=cp.float32)
    if dtype == "f16":
        A, B = A.astype(cp.float16), B.astype(cp.float16)
    return A, B, A.astype(cp.float64), B.astype(cp.float64)


def poisoned_output(M: int, N: int) -> Any:  # a CuPy array
    return cp.full((M, N), cp.nan, dtype=cp.float32)


def gpu_available() -> bool:
    try:
        return bool(cp.cuda.runtime.getDeviceCount() > 0)
    except Exception:
        return False
