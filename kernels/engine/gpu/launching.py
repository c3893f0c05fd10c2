"""Inside the GPU worker: loading a cubin, launching it under the parent's watch, and what a
launch can go wrong with (CUDA faults, inputs written to, the job ending early).

Safety rules kept here, so that a kernel cannot pass on stale or planted data: every output is poisoned with NaN (0xFF bytes) before
each launch; inputs are compared bitwise with their host copies after each checked run.

Imports numpy and cupy (lazily) and the standard library.
"""

from __future__ import annotations

import base64
import importlib.util
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .. import codes
from ..result import Message, Result
from .protocol import send

Launch = Callable[[], None]


class CudaFault(Exception):
    """A CUDA error caused by the learner's launch; the context may be poisoned."""

    def __init__(self, name: str, at_launch: bool):
        super().__init__(name)
        self.name, self.at_launch = name, at_launch


class JobFailed(Exception):
    """The job ends here with ``result`` (a wrong answer, a runtime error)."""

    def __init__(self, result: Result):
        super().__init__(result.verdict.value)
        self.result = result


def cuda_error_name(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.split(":", 1)[0].strip() or type(exc).__name__)[:80]


def cuda_errors() -> tuple[type[BaseException], ...]:
    import cupy

    errors: list[type[BaseException]] = [cupy.cuda.driver.CUDADriverError, cupy.cuda.runtime.CUDARuntimeError]
    try:
        from cupy_backends.cuda.api.runtime import CUDARuntimeError

        errors.append(CUDARuntimeError)
    except Exception:
        pass
    return tuple(errors)


def fault_message(fault: CudaFault, sizes: dict[str, int]) -> Message:
    params = {"size": sizes, "cuda_error": fault.name}
    upper = fault.name.upper()
    if "ILLEGAL_ADDRESS" in upper or "ILLEGALADDRESS" in upper:
        return Message(codes.RUNTIME_ILLEGAL_ADDRESS, params)
    if fault.at_launch:
        return Message(codes.RUNTIME_LAUNCH_FAILED, params)
    return Message(codes.RUNTIME_ERROR, params)


class Kernel:
    """A loaded cubin + its launch configuration."""

    def __init__(self, spec: dict[str, Any], exercise: dict[str, Any]):
        import cupy

        self.module = cupy.cuda.function.Module()
        self.module.load(base64.b64decode(spec["cubin_b64"]))
        self.function = self.module.get_function(spec["name"])
        launch = spec["launch"]
        self.block = tuple(int(v) for v in launch["block"])
        self.tile = tuple(int(v) for v in launch["tile"])
        self.smem = int(launch.get("smem", 0))
        self.exercise = exercise
        if self.smem > 48 * 1024:
            cupy.cuda.driver.funcSetAttribute(
                self.function.ptr, cupy.cuda.driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.smem)

    def grid(self, sizes: dict[str, int]) -> tuple[int, int, int]:
        output_grid = self.exercise["output_grid"]
        rows = output_grid["rows"] if isinstance(output_grid["rows"], int) else sizes[output_grid["rows"]]
        cols = output_grid["cols"] if isinstance(output_grid["cols"], int) else sizes[output_grid["cols"]]
        return (-(-cols // self.tile[0]), -(-rows // self.tile[1]), 1)

    def launcher(self, buffers: dict[str, Any], sizes: dict[str, int]) -> Launch:
        import numpy as np

        args: list[Any] = []
        for param in self.exercise["params"]:
            if param["role"] in ("input", "output"):
                args.append(buffers[param["name"]])
            elif param["role"] == "size":
                args.append(np.int32(sizes[param["name"]]))
            else:
                raise ValueError(f"unsupported parameter role {param['role']!r}")
        grid, block, smem, function = self.grid(sizes), self.block, self.smem, self.function
        arg_tuple = tuple(args)

        def launch() -> None:
            function(grid, block, arg_tuple, shared_mem=smem)

        return launch


def shape_of(param: dict[str, Any], sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(int(s) if str(s).isdigit() else int(sizes[s]) for s in param["shape"])


def load_reference(folder: str, exercise_id: str) -> ModuleType:
    """The exercise's reference.py (generate_inputs, reference, check)."""
    path = os.path.join(folder, "reference.py")
    spec = importlib.util.spec_from_file_location(f"_kernels_reference_{exercise_id}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def poison(array: Any) -> None:
    import cupy

    cupy.cuda.runtime.memsetAsync(array.data.ptr, 0xFF, array.nbytes,
                                  cupy.cuda.get_current_stream().ptr)  # 0xFFFFFFFF is a NaN


def run_learner_once(launch: Launch, what: str, limit_s: float) -> None:
    """Launch + wait under the parent's watch; CUDA errors become CudaFault."""
    import cupy

    errors = cuda_errors()
    send({"ev": "watch", "limit": limit_s, "what": what})
    try:
        launch()
    except errors as exc:
        raise CudaFault(cuda_error_name(exc), at_launch=True) from None
    try:
        cupy.cuda.get_current_stream().synchronize()
    except errors as exc:
        raise CudaFault(cuda_error_name(exc), at_launch=False) from None
    send({"ev": "unwatch"})


def inputs_changed(device: dict[str, Any], host: dict[str, Any]) -> tuple[str, list[int]] | None:
    """Name and first index of an input the kernel modified, or None (bitwise comparison)."""
    return first_change({name: device[name].get() for name in host}, host)


def first_change(copies: dict[str, Any], host: dict[str, Any]) -> tuple[str, list[int]] | None:
    """``inputs_changed`` on host copies of the device inputs (so the comparison can run in another
    thread while the GPU goes on)."""
    import numpy as np

    for name, host_array in host.items():
        bits = np.dtype(f"u{host_array.itemsize}")  # float16 inputs compare as uint16, float32 as uint32
        diff = copies[name].view(bits) != host_array.view(bits)
        if diff.any():
            return name, [int(i) for i in np.argwhere(diff)[0]]
    return None


def input_modified(sizes: dict[str, int], changed: tuple[str, list[int]]) -> Message:
    return Message(codes.INPUT_MODIFIED, {"size": sizes, "input": changed[0], "index": changed[1]})
