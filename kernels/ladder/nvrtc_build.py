"""Trusted, in-process NVRTC compile of the ladder's OWN rungs: cubin, PTX, ptxas log, resources.

The rungs are reference code written by this project, not learners' submissions, so they are
compiled like the engine's own reference kernels: in this process, no sandbox, through the
engine's one NVRTC call (kernels.engine.compiler.nvrtc_compile, which the sandboxed learner
worker and kernels.engine.gpu.trusted_compile.compile_trusted run too). This module only adds
what the ladder needs on top (see "Compiling the rungs" in kernels/ladder/NOTES.md): the PTX
(each rung's defining instructions), ptxas's resource lines (registers, spills) parsed by the engine's parser
(kernels.engine.compiler.logs), and a RuntimeError carrying the log when a rung does not compile.
The options are nvrtc_options(arch), the ones Compiler.options() passes learners' code, so a rung
submitted to the grader compiles identically.
"""
from __future__ import annotations

from dataclasses import dataclass

from kernels.engine.compiler.logs import parse_ptxas_resources
from kernels.engine.compiler.nvrtc_compile import COMMON_OPTIONS, PTXAS_VERBOSE, compile_program, nvrtc_options

from .rungs import KERNEL_NAME

# What nvrtc_options() puts after -arch (as Compiler.options()): no fast-math, so float32 rungs
# round like IEEE FMA code (the correctness bound in check.py relies on it); -Xptxas=-v for
# resource lines.
BASE_OPTIONS = (*COMMON_OPTIONS, PTXAS_VERBOSE)


@dataclass(frozen=True)
class Built:
    ptx: str
    cubin: bytes
    log: str                       # NVRTC's log, ptxas "info" lines included
    arch: str
    resources: dict[str, int]      # registers, shared_bytes, local_bytes, spill_*_bytes


def build(source: str, arch: str = "sm_90", name: str = "rung.cu") -> Built:
    """Compile `source` for `arch` ('sm_90' or 'sm_90a'); raises RuntimeError with the log on failure."""
    out = compile_program(source, name, nvrtc_options(arch))
    if out.error_kind == "compile":
        raise RuntimeError(f"NVRTC failed for {name} ({arch}):\n{out.log}")
    if not out.ok:
        raise RuntimeError(f"NVRTC failed for {name} ({arch}): {out.error}")
    resources = parse_ptxas_resources(out.log, KERNEL_NAME) or {}
    return Built(ptx=out.ptx.decode("utf-8", "replace"), cubin=out.cubin, log=out.log, arch=arch,
                 resources=resources)
