"""The compile worker: runs INSIDE the sandbox, one long-lived process, one compile at a time.

Self-contained on purpose (standard library + cupy.cuda.nvrtc only): the sandbox shows it no
repository, so it cannot import kernels.engine. The NVRTC call itself is the engine's shared one,
nvrtc_compile.py (equally self-contained), loaded by path from this file's folder: the sandbox
maps it read-only next to this script. Started as

    python -I -S -B worker.py CONFIG_JSON

CONFIG_JSON: {"preload": [paths], "sys_path": [...], "cpu_s": int, "data_bytes": int}

Protocol on stdin/stdout: frames of a 4-byte big-endian length and a payload.
- worker -> parent, once: {"ready": true, "nvrtc_version": [13, 0]}  (or {"ready": false, ...})
- parent -> worker: {"source": str, "name": str, "options": [str], "name_expressions": [str]}
- worker -> parent: a JSON header {"ok", "log", "lowered", "error", "error_kind"}, then two raw
  frames: the cubin and the PTX (empty when the compile failed).

Limits are set here, before the first untrusted source is read: RLIMIT_CPU per job (soft
limit moved forward each job; SIGXCPU ends the process), RLIMIT_DATA for memory (not
RLIMIT_AS: CUDA reserves huge virtual ranges), no core files, small file sizes.
"""

import ctypes
import importlib.util
import json
import os
import resource
import struct
import sys
from types import ModuleType
from typing import IO, Any

# The shared NVRTC call (kernels/engine/compiler/nvrtc_compile.py), a sibling of this file.
NVRTC_COMPILE_FILE = "nvrtc_compile.py"


def read_frame(stream: IO[bytes]) -> bytes | None:
    head = stream.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack(">I", head)
    data = stream.read(n)
    if len(data) < n:
        return None
    return data


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    stream.write(struct.pack(">I", len(payload)))
    stream.write(payload)


def send_json(stream: IO[bytes], obj: dict[str, Any]) -> None:
    write_frame(stream, json.dumps(obj).encode("utf-8"))
    stream.flush()


def cpu_used() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def arm_cpu_limit(seconds: float) -> None:
    """Allow `seconds` more CPU from now on; past that the kernel sends SIGXCPU."""
    soft = int(cpu_used() + seconds) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def set_static_limits(data_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
    if data_bytes:
        resource.setrlimit(resource.RLIMIT_DATA, (data_bytes, data_bytes))


def main() -> int:
    config = json.loads(sys.argv[1])
    # Nothing may write to the protocol stream but us: move it to its own descriptor and point
    # fd 1 (where a C library might print) at stderr.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = sys.stdin.buffer
    # numpy (imported by cupy) starts OpenBLAS, which sizes per-thread buffers by the core
    # count: on a big machine that alone can exceed RLIMIT_DATA. One thread is all we need.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    try:
        set_static_limits(int(config.get("data_bytes") or 0))
        for p in config.get("sys_path", []):
            if p not in sys.path:
                sys.path.append(p)
        for lib in config.get("preload", []):
            # Load NVRTC (and the builtins library it opens by name) by exact path, so no
            # library search runs inside the sandbox and no LD_LIBRARY_PATH is needed.
            ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
        nvrtc_compile = load_nvrtc_compile()
        version = list(nvrtc_compile.nvrtc_version())
    except BaseException as exc:  # report why, then stop: the parent marks the sandbox unusable
        send_json(out, {"ready": False, "error": type(exc).__name__, "detail": str(exc)[:500]})
        return 3
    limits = {name: list(resource.getrlimit(getattr(resource, name)))
              for name in ("RLIMIT_DATA", "RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_CORE", "RLIMIT_FSIZE")}
    send_json(out, {"ready": True, "nvrtc_version": version, "limits": limits,
                    "environ": sorted(os.environ), "uid": os.getuid(), "pid": os.getpid()})

    cpu_s = float(config.get("cpu_s") or 30)
    while True:
        frame = read_frame(inp)
        if frame is None:
            return 0
        job = json.loads(frame.decode("utf-8"))
        # A job may ask for less CPU than configured (the pipeline's first slice), never more.
        arm_cpu_limit(min(float(job.get("cpu_s") or cpu_s), cpu_s))
        header, cubin, ptx = compile_one(nvrtc_compile, job)
        send_json(out, header)
        write_frame(out, cubin)
        write_frame(out, ptx)
        out.flush()


def compile_one(nvrtc_compile: ModuleType, job: dict[str, Any]) -> tuple[dict[str, Any], bytes, bytes]:
    """One job through the shared NVRTC call; the error text is capped at 500 characters."""
    out = nvrtc_compile.compile_program(job["source"], job["name"], job["options"],
                                        job.get("name_expressions", []))
    header = {"ok": out.ok, "log": out.log, "lowered": out.lowered,
              "error": None if out.error is None else out.error[:500], "error_kind": out.error_kind}
    return header, out.cubin, out.ptx


def load_nvrtc_compile() -> ModuleType:
    """nvrtc_compile.py, the engine's one NVRTC call, from this script's own folder (inside the
    sandbox: /sandbox, where compiler/sandbox.py maps it read-only next to this file)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), NVRTC_COMPILE_FILE)
    spec = importlib.util.spec_from_file_location("nvrtc_compile", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses looks its module up while building the class
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    sys.exit(main())
