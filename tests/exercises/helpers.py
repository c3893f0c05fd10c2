"""Shared helpers for the exercise tests: listing .cu files, their launch comments, references."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

KERNELS = Path(__file__).resolve().parents[2] / "kernels"
EXERCISES = ("col_sum", "row_sum", "transpose", "gemm", "gemm_fast", "hgemm")
LAUNCH_RE = re.compile(r"^//\s*launch:\s*(\{.*\})", re.M)
EXPECT_RE = re.compile(r"^//\s*expect:\s*([A-Z_]+)", re.M)


def cu_files(exercise: str, kind: str) -> list[Path]:
    """kind: correct | wrong | hostile | references (naive, tiled, starter)."""
    folder = KERNELS / exercise
    if kind in ("correct", "wrong"):
        return sorted((folder / "solutions" / kind).glob("*.cu"))
    if kind == "hostile":
        return sorted((folder / "hostile").glob("*.cu"))
    return [folder / n for n in ("naive.cu", "tiled.cu", "starter.cu")]


def all_cu() -> list[tuple[str, Path]]:
    out = []
    for ex in EXERCISES:
        for kind in ("references", "correct", "wrong", "hostile"):
            out += [(ex, p) for p in cu_files(ex, kind)]
    return out


def launch_of(path: Path) -> dict | None:
    m = LAUNCH_RE.search(path.read_text(encoding="utf-8"))
    return json.loads(m.group(1)) if m else None


def expected_verdict(path: Path) -> str:
    m = EXPECT_RE.search(path.read_text(encoding="utf-8"))
    assert m, f"{path} has no '// expect: VERDICT' line"
    return m.group(1)


def load_reference(exercise: str):
    path = KERNELS / exercise / "reference.py"
    spec = importlib.util.spec_from_file_location(f"_test_ref_{exercise}", path)
    assert spec is not None and spec.loader is not None, f"{path} cannot be imported"
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
