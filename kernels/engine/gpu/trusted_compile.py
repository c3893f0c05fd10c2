"""Reference kernels (OUR trusted .cu files, never a learner's) compiled in this process, without
a sandbox, through the engine's one NVRTC call (compiler/nvrtc_compile.py); cached per file version.
"""

from __future__ import annotations

import os
import threading

from ..compiler.nvrtc_compile import compile_program, nvrtc_options

_ref_cache: dict[tuple[str, int, int, str], tuple[bytes, str]] = {}
_ref_lock = threading.Lock()


def compile_trusted(path: str, kernel_name: str, arch: str) -> bytes:
    """NVRTC compile of one of OUR .cu files (naive.cu, tiled.cu), cached per file version."""
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size, arch)
    with _ref_lock:
        hit = _ref_cache.get(key)
        if hit is not None:
            return hit[0]
    with open(path, encoding="utf-8") as fh:
        src = fh.read()
    # the engine's one NVRTC call; no -Xptxas=-v: only the cubin is used here
    out = compile_program(src, os.path.basename(path), nvrtc_options(arch, ptxas_verbose=False))
    if not out.ok:
        detail = out.log if out.error_kind == "compile" else (out.error or "")
        raise RuntimeError(f"reference {path} does not compile: {detail[:2000]}")
    cubin = out.cubin
    with _ref_lock:
        _ref_cache[key] = (cubin, kernel_name)
    return cubin
