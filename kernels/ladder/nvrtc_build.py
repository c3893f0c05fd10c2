"""Trusted, in-process NVRTC compile of the ladder's OWN rungs: cubin, PTX, ptxas log, resources.

The rungs are reference code written by this project, not learners' submissions, so they are
compiled the way the engine compiles its own reference kernels (kernels/engine/gpu/runner.py,
compile_trusted): in this process, no sandbox. This module exists because neither engine entry
point gives the ladder what it needs (see "Compiling the rungs" in kernels/ladder/NOTES.md):
- kernels.engine.compiler.Compiler is the LEARNER path: an out-of-process bubblewrap worker,
  logs rewritten for learners. It needs the sandbox on every machine that benchmarks the ladder,
  and trusted code gains nothing from it.
- kernels.engine.gpu.runner.compile_trusted returns only a cubin: the CPU checks need the PTX
  (each rung's defining instructions) and ptxas's resource lines (registers, spills).
What is shared with the engine: the NVRTC library (cupy.cuda.nvrtc), the compile options (the
same ones Compiler.options() passes learners' code, so a rung submitted to the grader compiles
identically) and the ptxas resource parser (kernels.engine.compiler.logs).
"""
from __future__ import annotations

from dataclasses import dataclass

from cupy.cuda import nvrtc

from kernels.engine.compiler.logs import parse_ptxas_resources

from .rungs import KERNEL_NAME

# As kernels.engine.compiler.service.Compiler.options(): no fast-math, so float32 rungs round like
# IEEE FMA code (the correctness bound in check.py relies on it); -Xptxas=-v for resource lines.
BASE_OPTIONS = ("--std=c++17", "-default-device", "-Xptxas=-v")


@dataclass(frozen=True)
class Built:
    ptx: str
    cubin: bytes
    log: str                       # NVRTC's log, ptxas "info" lines included
    arch: str
    resources: dict[str, int]      # registers, shared_bytes, local_bytes, spill_*_bytes


def _text(value) -> str:
    return value.decode("utf-8", "replace").rstrip("\x00") if isinstance(value, bytes) else str(value)


def build(source: str, arch: str = "sm_90", name: str = "rung.cu") -> Built:
    """Compile `source` for `arch` ('sm_90' or 'sm_90a'); raises RuntimeError with the log on failure."""
    prog = nvrtc.createProgram(source, name, [], [])
    try:
        try:
            nvrtc.compileProgram(prog, [f"-arch={arch}", *BASE_OPTIONS])
        except nvrtc.NVRTCError as exc:
            raise RuntimeError(f"NVRTC failed for {name} ({arch}):\n{_text(nvrtc.getProgramLog(prog))}") from exc
        log = _text(nvrtc.getProgramLog(prog))
        resources = parse_ptxas_resources(log, KERNEL_NAME) or {}
        return Built(ptx=_text(nvrtc.getPTX(prog)), cubin=bytes(nvrtc.getCUBIN(prog)), log=log, arch=arch,
                     resources=resources)
    finally:
        nvrtc.destroyProgram(prog)
