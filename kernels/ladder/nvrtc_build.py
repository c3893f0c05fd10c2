"""Compile a rung with NVRTC on the CPU (no GPU needed): PTX text and a cubin.

TO BE REPLACED by kernels.engine.compiler once the engine's compile API has landed; this is a
minimal stand-in that uses the same NVRTC (cupy.cuda.nvrtc) with the same no-include policy.
"""
from __future__ import annotations

from dataclasses import dataclass

from cupy.cuda import nvrtc

# Options shared by every rung. -default-device keeps helper functions device-side; the fast-math
# flags are NOT used, so float32 rungs round like IEEE FMA code (the tolerance relies on it).
BASE_OPTIONS = ("--std=c++17", "-default-device", "--ptxas-options=-v")


@dataclass(frozen=True)
class Built:
    ptx: str
    cubin: bytes
    log: str
    arch: str


def build(source: str, arch: str = "sm_90", name: str = "rung.cu") -> Built:
    """Compile `source` for `arch` ('sm_90' or 'sm_90a'); raises RuntimeError with the log on failure."""
    prog = nvrtc.createProgram(source, name, [], [])
    try:
        opts = BASE_OPTIONS + (f"--gpu-architecture={arch}",)
        try:
            nvrtc.compileProgram(prog, opts)
        except nvrtc.NVRTCError as exc:
            raise RuntimeError(f"NVRTC failed for {name} ({arch}):\n{nvrtc.getProgramLog(prog)}") from exc
        return Built(ptx=nvrtc.getPTX(prog).decode() if isinstance(nvrtc.getPTX(prog), bytes) else nvrtc.getPTX(prog),
                     cubin=nvrtc.getCUBIN(prog), log=nvrtc.getProgramLog(prog), arch=arch)
    finally:
        nvrtc.destroyProgram(prog)
