"""Hardware counters from Nsight Compute (``ncu``), when the grading host has it. Opt-in per
submission ("profile this"): a full ncu report replays a kernel dozens of times, so we ask for a
small metric set, for the learner's kernel only, at one size, once.

Where ncu comes from (first found): ``$MKC_NCU`` (the server setting), ``/usr/local/cuda/bin/ncu``,
``/opt/nvidia/nsight-compute/*/ncu``, ``$PATH``. Absent, ``collect`` answers
``{"available": False, "reason": "NCU_MISSING"}`` and the panel says so plainly.

How it runs: inside the GPU sandbox (gpu/sandbox.py's bubblewrap settings: the /dev/nvidia*
nodes, the kernels/ folder, an empty environment, no network), ncu launching
``profile_target.py``, which loads the cubin and launches the kernel once. The job (cubin, kernel
name from the spec, validated launch, size) goes in as a file made from an in-memory descriptor;
the command line is fixed. A wall deadline kills the process group; output is capped.
"""

from __future__ import annotations

import base64
import csv
import glob
import io
import json
import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .. import sandboxing
from ..settings import engine_settings
from .disasm import complete_elf, first_executable, tool_version

log = logging.getLogger(__name__)
JOB_IN_SANDBOX = "/sandbox/profile-job.json"
OUTPUT_CAP = 1 << 20
DEADLINE_S = 90.0

# The small metric set (names as ncu 2025 knows them on sm_80+).
METRICS = (
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
)


@lru_cache(maxsize=1)
def find_ncu() -> str | None:
    return first_executable([engine_settings().ncu, "/usr/local/cuda/bin/ncu",
                             *sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"), reverse=True),
                             shutil.which("ncu") or ""])


def derive(raw: Mapping[str, float | None]) -> dict[str, float | None]:
    """The numbers the panel explains, from the raw counters."""
    def get(k: str) -> float | None:
        v = raw.get(k)
        return float(v) if isinstance(v, (int, float)) else None

    out: dict[str, float | None] = {}
    sectors, requests = get(METRICS[0]), get(METRICS[1])
    out["sectors_per_request"] = round(sectors / requests, 3) if sectors is not None and requests else None
    conflicts, lds, sts = get(METRICS[2]), get(METRICS[3]), get(METRICS[4])
    shared = (lds or 0) + (sts or 0)
    out["bank_conflicts_per_request"] = round(conflicts / shared, 3) if conflicts is not None and shared else (
        0.0 if conflicts == 0 else None)
    active = get(METRICS[5])
    out["achieved_occupancy"] = round(active / 100, 4) if active is not None else None
    out["dram_bytes_read"] = get(METRICS[6])
    out["dram_bytes_write"] = get(METRICS[7])
    out["sm_throughput_pct"] = get(METRICS[8])
    return out


def parse_csv(text: str, kernel_name: str) -> dict[str, float | None]:
    """ncu --csv --print-units base: one row per metric; values may carry thousands separators."""
    start = text.find('"ID"')
    if start < 0:
        return {}
    raw: dict[str, float | None] = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        if row.get("Kernel Name", "").split("(")[0].strip() != kernel_name:
            continue
        name, value = row.get("Metric Name"), (row.get("Metric Value") or "").replace(",", "")
        if name not in METRICS or name in raw:
            continue
        try:
            raw[name] = float(value)
        except ValueError:
            raw[name] = None
    return raw


def ncu_args(kernel_name: str) -> list[str]:
    return ["--metrics", ",".join(METRICS), "--csv", "--print-units", "base", "--kernel-name", kernel_name,
            "--launch-count", "1"]


def collect(exercise: Any, cubin: bytes, kernel_name: str, plan: Any, size: Mapping[str, int] | None = None,
            *, sandboxed: bool | None = None, deadline_s: float = DEADLINE_S,
            keep_output: bool = False) -> dict[str, Any]:
    """The counters section of the insight: {"available", "reason", "tool", "size", "metrics", "raw"}.
    ``keep_output`` adds ncu's own text as "_output" (for tests and benchmarks; never stored)."""
    ncu = find_ncu()
    if ncu is None:
        return {"available": False, "reason": "NCU_MISSING"}
    from ..gpu import sandbox as gpu_sandbox
    from ..sandboxing import unsafe_unsandboxed_allowed

    if sandboxed is None:  # the GPU sandbox's own setting (MKC_UNSAFE_UNSANDBOXED_GPU)
        sandboxed = not unsafe_unsandboxed_allowed(gpu_sandbox.UNSAFE_ENV)
    if size is None:
        size = exercise.timing_sizes[0] if exercise.timing_sizes else exercise.correctness_sizes[-1]
    size = dict(size)

    job = {"cubin_b64": base64.b64encode(complete_elf(cubin)).decode(), "name": kernel_name,
           "block": list(plan.block), "grid": list(plan.grid(exercise, size)), "smem": int(plan.smem),
           "params": [{"name": p.name, "role": p.role, "shape": list(p.shape or ())} for p in exercise.kernel.params],
           "size": size, "folder": str(exercise.folder), "exercise": exercise.id}
    fd = os.memfd_create("profile-job", 0)
    os.write(fd, json.dumps(job).encode())
    os.lseek(fd, 0, os.SEEK_SET)
    py = [sys.executable, "-s", "-B", "-m", "kernels.engine.insight.profile_target"]
    try:
        if sandboxed:
            try:
                options = gpu_sandbox.bwrap_args()
                argv = [gpu_sandbox.bwrap_binary(), *options, "--ro-bind-data", str(fd), JOB_IN_SANDBOX,
                        "--", ncu, *ncu_args(kernel_name), *py, JOB_IN_SANDBOX]
            except Exception:
                return {"available": False, "reason": "NO_SANDBOX"}
            env = None
        else:
            argv = [ncu, *ncu_args(kernel_name), *py, f"/proc/self/fd/{fd}"]
            env = gpu_sandbox.worker_env(sandboxed=False)
        started = time.monotonic()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True, close_fds=True, pass_fds=(fd,), env=env or {})
    finally:
        os.close(fd)
    chunks: list[bytes] = []
    size_read, timed_out = 0, False
    deadline = started + deadline_s
    stdout = proc.stdout
    assert stdout is not None  # started with a pipe on stdout
    try:
        while True:
            if not sandboxing.wait_readable(stdout.fileno(), deadline):
                timed_out = True
                break
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size_read += len(chunk)
            if size_read > OUTPUT_CAP:
                break
    finally:
        if timed_out or size_read > OUTPUT_CAP:
            sandboxing.kill_process_group(proc.pid)
        stdout.close()
        proc.wait()
    text = b"".join(chunks).decode("utf-8", "replace")
    tool = tool_version(ncu, "ncu")
    if timed_out:
        return {"available": False, "reason": "NCU_TIMEOUT", "tool": tool}
    raw = parse_csv(text, kernel_name)
    extra = {"_output": text} if keep_output else {}
    if not raw:
        reason = "NCU_NO_PERMISSION" if "ERR_NVGPUCTRPERM" in text else "NCU_FAILED"
        log.warning("ncu gave no counters (%s): %s", reason, _last_lines(text))
        return {"available": False, "reason": reason, "tool": tool, **extra}
    return {"available": True, "reason": None, "tool": tool, "size": size, "metrics": derive(raw), "raw": raw,
            "ms": round((time.monotonic() - started) * 1000, 1), **extra}


def _last_lines(text: str, n: int = 6) -> str:
    """The tail of ncu's output for the server log (never shown to learners: it names paths)."""
    return "\n".join([line for line in text.splitlines() if line.strip()][-n:])[-1500:]
