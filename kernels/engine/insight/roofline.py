"""Where a submission sits on the grading GPU's roofline.

The exercise's ``spec.yaml`` gives two formulas in its sizes (``roofline: {flops, min_bytes}``):
the arithmetic the problem needs and the fewest bytes any kernel must move to and from DRAM (each
input read once, each output written once). Their ratio is the arithmetic intensity (FLOP/byte).
The ceilings (DRAM bandwidth from a copy kernel, FP32 FFMA peak, Tensor Core peak from cuBLAS)
were measured on the grading GPU by ``python -m kernels.engine.insight.bench_ceilings`` and stored
in ``kernels/results/<gpu>-<date>-ceilings.json``; the one matching the Result's GPU name is used.

The attainable rate at intensity I is min(FP32 peak, I x DRAM bandwidth); a kernel's measured
rate divided by that is how close it is to its roof. Standard library only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..exercise import Exercise, _eval_expr

RESULTS_DIR = Path(__file__).resolve().parents[2] / "results"
CEILINGS_GLOB = "*-ceilings.json"


class RooflineSpecError(ValueError):
    pass


def formulas(exercise: Exercise) -> dict[str, str] | None:
    """{"flops", "min_bytes"} from the spec, or None when the spec has none."""
    raw = (exercise.raw or {}).get("roofline")
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or not all(isinstance(raw.get(k), str) for k in ("flops", "min_bytes")):
        raise RooflineSpecError(f"{exercise.id}: roofline needs string formulas 'flops' and 'min_bytes'")
    return {"flops": raw["flops"], "min_bytes": raw["min_bytes"]}


def amounts(exercise: Exercise, size: Mapping[str, int]) -> tuple[float, float] | None:
    f = formulas(exercise)
    if f is None:
        return None
    return float(_eval_expr(f["flops"], size)), float(_eval_expr(f["min_bytes"], size))


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", (name or "").lower()).strip("-")


@lru_cache(maxsize=8)
def _load_all(folder: str) -> tuple[dict[str, Any], ...]:
    out: list[dict[str, Any]] = []
    for p in sorted(Path(folder).glob(CEILINGS_GLOB)):
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("gpu"), dict):
            data["file"] = p.name
            out.append(data)
    return tuple(out)


def ceilings_for(gpu_name: str | None, folder: Path | None = None) -> dict[str, Any] | None:
    """The newest ceilings file measured on a GPU of this name (files sort by date in the name)."""
    if not gpu_name:
        return None
    matches = [c for c in _load_all(str(folder or RESULTS_DIR)) if slug(c["gpu"].get("name", "")) == slug(gpu_name)]
    return matches[-1] if matches else None


def _rate(timings: list[dict[str, Any]], kernel: str, size: Mapping[str, int]) -> float | None:
    for t in timings:
        if t.get("kernel") == kernel and dict(t.get("size") or {}) == dict(size):
            ms = t.get("median_ms")
            if isinstance(ms, (int, float)) and ms > 0:
                return ms / 1000.0
    return None


def place(exercise: Exercise, timings: list[dict[str, Any]], gpu_name: str | None,
          ceilings: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The roofline section of the insight, or None when the exercise has no formulas.

    ``timings``: the Result's timings as dicts. Without a measured ceiling file for this GPU the
    section still carries the intensity and the rates (the panel then says the ceilings are
    missing); without timings it carries the intensity alone.
    """
    if formulas(exercise) is None:
        return None
    size = dict(exercise.timing_sizes[-1]) if exercise.timing_sizes else {}
    sizes = [dict(t.get("size") or {}) for t in timings if t.get("kernel") == "learner"]
    if sizes:
        size = max(sizes, key=lambda s: sum(v for v in s.values() if isinstance(v, (int, float))))
    flops, min_bytes = (amounts(exercise, size) or (0.0, 0.0)) if size else (0.0, 0.0)
    intensity = flops / min_bytes if min_bytes > 0 else 0.0
    ceil = ceilings if ceilings is not None else ceilings_for(gpu_name)
    points: list[dict[str, Any]] = []
    for kernel in ("learner", "naive", "tiled"):
        seconds = _rate(timings, kernel, size)
        if seconds is None:
            continue
        points.append({"kernel": kernel, "gflops": round(flops / seconds / 1e9, 3),
                       "gbs": round(min_bytes / seconds / 1e9, 3)})
    out: dict[str, Any] = {"size": size, "flops": flops, "min_bytes": min_bytes,
                           "intensity": round(intensity, 6), "points": points, "ceilings": None,
                           "bound": None, "attainable_gflops": None, "fraction": None}
    if ceil:
        dram, fp32 = float(ceil.get("dram_gbs") or 0), float(ceil.get("fp32_tflops") or 0) * 1000
        tensor = ceil.get("tensor_tflops")
        out["ceilings"] = {"file": ceil.get("file"), "gpu": ceil["gpu"].get("name"), "dram_gbs": dram,
                           "fp32_gflops": fp32,
                           "tensor_gflops": float(tensor) * 1000 if isinstance(tensor, (int, float)) else None}
        if flops > 0 and dram > 0 and fp32 > 0:
            attainable = min(fp32, intensity * dram)
            out["attainable_gflops"] = round(attainable, 3)
            out["bound"] = "memory" if intensity * dram < fp32 else "compute"
            mine = next((p for p in points if p["kernel"] == "learner"), None)
            if mine:
                out["fraction"] = round(mine["gflops"] / attainable, 4)
        elif dram > 0:  # a pure data-movement problem: the only roof is bandwidth
            out["bound"] = "memory"
            mine = next((p for p in points if p["kernel"] == "learner"), None)
            if mine:
                out["fraction"] = round(mine["gbs"] / dram, 4)
    return out
