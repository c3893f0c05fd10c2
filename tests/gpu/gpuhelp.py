"""Helpers for the GPU tests. No conftest: these tests also run on the GPU machine, which lacks
the web stack the top-level tests/conftest.py imports (run them with ``--noconftest``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.scrape import first_group

KERNELS = Path(__file__).resolve().parents[2] / "kernels"
EXERCISES = ("col_sum", "row_sum", "transpose", "gemm", "gemm_fast", "hgemm")
LAUNCH_RE = re.compile(r"^//\s*launch:\s*(\{.*\})", re.M)
EXPECT_RE = re.compile(r"^//\s*expect:\s*([A-Z_]+)", re.M)


def have_gpu() -> bool:
    try:
        from kernels.engine.gpu import gpu_available

        return gpu_available()
    except Exception:
        return False


needs_gpu = pytest.mark.skipif(not have_gpu(), reason="no CUDA GPU here")


def need_sandbox_without_gpu() -> None:
    """Skip unless bubblewrap is here and no GPU is (the real worker must report 'no GPU')."""
    from kernels.engine.gpu import sandbox

    if have_gpu():
        pytest.skip("a GPU is here; tests/gpu/test_gpu_grading.py covers the real thing")
    try:
        sandbox.bwrap_binary()
    except sandbox.SandboxUnavailable:
        pytest.skip("no bubblewrap here")


def launch_of(path: Path, exercise) -> dict:
    m = LAUNCH_RE.search(path.read_text(encoding="utf-8"))
    return json.loads(m.group(1)) if m else exercise.launch_defaults.as_request()


def expected_verdict(path: Path) -> str:
    return first_group(EXPECT_RE, path.read_text(encoding="utf-8"))


def solutions(kind: str) -> list[tuple[str, Path]]:
    return [(ex, p) for ex in EXERCISES for p in sorted((KERNELS / ex / "solutions" / kind).glob("*.cu"))]


def compile_file(exercise, path: Path):
    """Compile through the engine's own path (policy, sandboxed NVRTC, signature check)."""
    from kernels.engine.compiler import get_compiler
    from kernels.engine.policy import check_source

    text = check_source(path.read_text(encoding="utf-8"))
    return get_compiler().compile(text, exercise.kernel, headers=exercise.headers)


def plan_for(exercise, launch: dict):
    """A launch plan WITHOUT the engine's validation (hostile tests need oversized ones)."""
    from kernels.engine.launch import LaunchPlan

    return LaunchPlan(block=tuple(launch["block"]), tile=tuple(launch["tile"]),
                      smem=int(launch.get("smem", 0)))


def ident(v) -> str:
    return str(v).split("kernels/")[-1] if isinstance(v, Path) else str(v)
