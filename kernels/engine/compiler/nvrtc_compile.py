"""The one NVRTC compile: the options every caller passes and the call into NVRTC itself.

Three callers, one code path:
- the sandboxed compile worker (worker.py) compiles learners' code with it INSIDE the sandbox;
- kernels/engine/gpu/trusted_compile.py (compile_trusted) compiles the exercises' own reference kernels;
- kernels/ladder/nvrtc_build.py compiles the ladder's rungs.

Self-contained on purpose (standard library only; ``cupy.cuda.nvrtc`` is imported when first
needed): the compile sandbox shows the worker no repository, so this file is mapped into the
sandbox next to worker.py (compiler/sandbox.py) and loaded there by path. It must never import
anything from kernels/ or app/. What makes the learner path safe (the sandbox, CPU and memory
limits, the wall deadline, caps on what comes back) stays with the worker and its parent: this
module only builds the options and runs NVRTC.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# No fast-math: float32 kernels round like IEEE FMA code (the ladder's correctness bound and the
# graders' tolerances rely on it).
COMMON_OPTIONS = ("--std=c++17", "-default-device")
# ptxas's "Used N registers, ..." lines in the log: the resources the Result and the ladder report.
PTXAS_VERBOSE = "-Xptxas=-v"


def nvrtc_options(arch: str, *, ptxas_verbose: bool = True, lineinfo: bool = False,
                  extra: Iterable[str] = (), include_dirs: Iterable[str] = ()) -> list[str]:
    """``-arch=<arch> --std=c++17 -default-device [-Xptxas=-v] [-lineinfo] [extra...] [-I<dir>...]``."""
    opts = [f"-arch={arch}", *COMMON_OPTIONS]
    if ptxas_verbose:
        opts.append(PTXAS_VERBOSE)
    if lineinfo:
        opts.append("-lineinfo")
    opts.extend(extra)
    opts.extend(f"-I{d}" for d in include_dirs)
    return opts


@dataclass
class NvrtcOutput:
    """What one NVRTC compile gave. ``error_kind``: None (ok), "compile" (the source does not
    compile; ``log`` says why), "memory" (NVRTC ran out of memory) or "internal" (NVRTC itself
    failed outside compileProgram)."""

    ok: bool = False
    log: str = ""
    lowered: dict[str, str] = field(default_factory=dict)  # name expression -> lowered (mangled) name
    cubin: bytes = b""
    ptx: bytes = b""  # trailing NULs removed; empty when the compile failed
    error: str | None = None  # the exception's text, uncapped (callers cap what they pass on)
    error_kind: str | None = None


def load_nvrtc() -> Any:
    """cupy.cuda.nvrtc (a Cython module: typed Any)."""
    from cupy.cuda import nvrtc

    return nvrtc


def nvrtc_version(nvrtc: Any = None) -> tuple[int, int]:
    """(major, minor) of the NVRTC library loaded in this process (no GPU needed)."""
    major, minor = (nvrtc or load_nvrtc()).getVersion()
    return int(major), int(minor)


def compile_program(source: str, name: str, options: Iterable[str],
                    name_expressions: Iterable[str] = (), *, nvrtc: Any = None) -> NvrtcOutput:
    """Compile ``source`` (called ``name`` in NVRTC's messages) with ``options``; never raises
    for a failed compile: the outcome, log and error are in the returned NvrtcOutput."""
    nvrtc = nvrtc or load_nvrtc()
    names = list(name_expressions)
    out = NvrtcOutput()
    prog = None
    try:
        prog = nvrtc.createProgram(source, name, [], [])
        for expr in names:
            nvrtc.addNameExpression(prog, expr)
        try:
            nvrtc.compileProgram(prog, list(options))
            out.ok = True
        except nvrtc.NVRTCError as exc:
            out.error = str(exc)
            out.error_kind = "compile"
        out.log = _as_text(nvrtc.getProgramLog(prog))
        if out.ok:
            for expr in names:
                out.lowered[expr] = _as_text(nvrtc.getLoweredName(prog, expr))
            out.cubin = bytes(nvrtc.getCUBIN(prog))
            out.ptx = bytes(nvrtc.getPTX(prog)).rstrip(b"\x00")
    except MemoryError:
        out.ok, out.error, out.error_kind = False, "MemoryError", "memory"
    except Exception as exc:  # an NVRTC failure outside compileProgram (e.g. out of memory)
        text = str(exc)
        out.ok, out.error = False, text
        out.error_kind = "memory" if "OUT_OF_MEMORY" in text.upper() else "internal"
    finally:
        if prog is not None:
            try:
                nvrtc.destroyProgram(prog)
            except Exception:
                pass
    return out


def _as_text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)
