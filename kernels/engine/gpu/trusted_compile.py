"""Reference kernels (OUR trusted .cu files, never a learner's) compiled in this process, without
a sandbox, through the engine's one NVRTC call (compiler/nvrtc_compile.py); cached per file version.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable

from ..compiler.nvrtc_compile import compile_program, nvrtc_options
from ..headers import prelude

_ref_cache: dict[tuple[str, int, int, str, tuple[str, ...]], tuple[bytes, str]] = {}
_ref_lock = threading.Lock()


def compile_trusted(path: str, kernel_name: str, arch: str, headers: Iterable[str] = ()) -> bytes:
    """NVRTC compile of one of OUR .cu files (naive.cu, tiled.cu), cached per file version.
    ``headers``: the exercise's spec.yaml headers, included as for a learner's source (the same
    prelude), from the CUDA header folder the compile sandbox uses."""
    headers = tuple(headers)
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size, arch, headers)
    with _ref_lock:
        hit = _ref_cache.get(key)
        if hit is not None:
            return hit[0]
    with open(path, encoding="utf-8") as fh:
        src = fh.read()
    include_dirs: list[str] = []
    if headers:
        from ..compiler.sandbox import find_toolchain

        src = prelude(headers) + src
        include_dirs = [d for d in (find_toolchain().include_dir,) if d]
    # the engine's one NVRTC call; no -Xptxas=-v: only the cubin is used here
    out = compile_program(src, os.path.basename(path),
                          nvrtc_options(arch, ptxas_verbose=False, include_dirs=include_dirs))
    if not out.ok:
        detail = out.log if out.error_kind == "compile" else (out.error or "")
        raise RuntimeError(f"reference {path} does not compile: {detail[:2000]}")
    cubin = out.cubin
    with _ref_lock:
        _ref_cache[key] = (cubin, kernel_name)
    return cubin
