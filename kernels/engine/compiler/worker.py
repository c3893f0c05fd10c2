"""The compile worker: runs INSIDE the sandbox, one long-lived process, one compile at a time.

Self-contained on purpose (standard library + cupy.cuda.nvrtc only): the sandbox shows it no
repository, so it cannot import kernels.engine. Started as

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
import json
import os
import resource
import struct
import sys
from typing import Any


def read_frame(stream):
    head = stream.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack(">I", head)
    data = stream.read(n)
    if len(data) < n:
        return None
    return data


def write_frame(stream, payload):
    stream.write(struct.pack(">I", len(payload)))
    stream.write(payload)


def send_json(stream, obj):
    write_frame(stream, json.dumps(obj).encode("utf-8"))
    stream.flush()


def cpu_used():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def arm_cpu_limit(seconds):
    """Allow `seconds` more CPU from now on; past that the kernel sends SIGXCPU."""
    soft = int(cpu_used() + seconds) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def set_static_limits(data_bytes):
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
    if data_bytes:
        resource.setrlimit(resource.RLIMIT_DATA, (data_bytes, data_bytes))


def main():
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
        from cupy.cuda import nvrtc

        version = list(nvrtc.getVersion())
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
        arm_cpu_limit(cpu_s)
        header, cubin, ptx = compile_one(nvrtc, job)
        send_json(out, header)
        write_frame(out, cubin)
        write_frame(out, ptx)
        out.flush()


def compile_one(nvrtc, job):
    lowered: dict[str, str] = {}
    header: dict[str, Any] = {"ok": False, "log": "", "lowered": lowered, "error": None, "error_kind": None}
    cubin = b""
    ptx = b""
    prog = None
    try:
        prog = nvrtc.createProgram(job["source"], job["name"], [], [])
        for expr in job.get("name_expressions", []):
            nvrtc.addNameExpression(prog, expr)
        try:
            nvrtc.compileProgram(prog, job["options"])
            header["ok"] = True
        except nvrtc.NVRTCError as exc:
            header["error"] = str(exc)[:500]
            header["error_kind"] = "compile"
        header["log"] = _as_text(nvrtc.getProgramLog(prog))
        if header["ok"]:
            for expr in job.get("name_expressions", []):
                lowered[expr] = _as_text(nvrtc.getLoweredName(prog, expr))
            cubin = bytes(nvrtc.getCUBIN(prog))
            ptx = bytes(nvrtc.getPTX(prog)).rstrip(b"\x00")
    except MemoryError:
        header.update(ok=False, error="MemoryError", error_kind="memory")
    except Exception as exc:  # an NVRTC failure outside compileProgram (e.g. out of memory)
        text = str(exc)
        kind = "memory" if "OUT_OF_MEMORY" in text.upper() else "internal"
        header.update(ok=False, error=text[:500], error_kind=kind)
    finally:
        if prog is not None:
            try:
                nvrtc.destroyProgram(prog)
            except Exception:
                pass
    return header, cubin, ptx


def _as_text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


if __name__ == "__main__":
    sys.exit(main())
