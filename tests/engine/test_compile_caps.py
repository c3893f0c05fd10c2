"""Caps on what comes back from the compile worker and the GPU worker, with literal values: the compile
log a learner sees is capped at 16 KiB (kernels/README.md), a frame from the compile worker over
64 MiB ends the worker instead of being read, each compile's CPU limit is the seconds asked for (not
more), and the GPU worker writes NaN and infinities as the Result format's marker strings."""

from __future__ import annotations

import json
import math
import os
import struct
import subprocess
import sys
import time
import types

import pytest

from kernels.engine.compiler.logs import cap, learner_log
from kernels.engine.compiler.worker_client import CompileWorker, WorkerDied, WorkerTimeout


def test_a_log_of_exactly_16_kib_is_kept_whole_and_a_longer_one_is_cut_to_16_kib():
    exact = ("a" * 63 + "\n") * 256
    assert len(exact.encode()) == 16384
    assert cap(exact) == (exact, False)
    text, truncated = cap(exact + "b")
    assert truncated and text.endswith("\n[...]\n") and len(text.encode()) <= 16384


def test_the_learners_compile_log_is_capped_at_16_kib():
    raw = "".join(f'kernel.cu({n}): error: identifier "x{n}" is undefined\n' for n in range(1, 2000))
    log = learner_log(raw)
    assert log.truncated and len(log.text.encode()) <= 16384 and log.text.endswith("\n[...]\n")
    assert len(log.learner_errors) == 1999  # every error still counts, only the text is cut


def test_a_frame_over_64_mib_from_the_compile_worker_is_refused_unread():
    r, w = os.pipe()
    try:
        os.write(w, struct.pack(">I", (64 << 20) + 1))
        worker = CompileWorker()
        worker._proc = types.SimpleNamespace(stdout=types.SimpleNamespace(fileno=lambda: r), wait=lambda timeout: 0)
        with pytest.raises(WorkerDied):
            worker._read_frame(time.monotonic() + 0.5)
        os.write(w, struct.pack(">I", 64 << 20))  # exactly 64 MiB is a frame it would read (none comes here)
        with pytest.raises(WorkerTimeout):
            worker._read_frame(time.monotonic() + 0.2)
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.parametrize("seconds", [1.0, 3.0])
def test_a_compiles_cpu_limit_is_the_seconds_asked_for_from_now(seconds):
    """arm_cpu_limit(s): the soft RLIMIT_CPU is the CPU used so far plus s, rounded up to the next
    whole second (run in a child: the limit is its own)."""
    code = ("import resource\n"
            "from kernels.engine.compiler.worker import arm_cpu_limit, cpu_used\n"
            f"arm_cpu_limit({seconds})\n"
            "print(resource.getrlimit(resource.RLIMIT_CPU)[0] - cpu_used())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    left = float(out.stdout)
    assert seconds < left <= seconds + 1.0


def test_the_gpu_workers_events_write_nan_and_infinities_as_markers(monkeypatch):
    from kernels.engine.gpu import protocol

    r, w = os.pipe()
    monkeypatch.setattr(protocol, "_stream", None)
    protocol.open_stream(w)
    try:
        protocol.send({"ev": "result", "got": math.nan, "spread": [math.inf, -math.inf, 1.5]})
        line = os.read(r, 65536).decode()
    finally:
        protocol._stream.close()
        os.close(r)
    assert json.loads(line) == {"ev": "result", "got": "NaN", "spread": ["Infinity", "-Infinity", 1.5]}
