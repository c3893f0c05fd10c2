"""The newest ladder measurements (contract D, kind "ladder"), arranged per rung and per size.

Files of one date are merged only when they share the GPU; the newest date wins. A rung's "% of
cuBLAS" is its entry's ``vs_baseline``: the ratio against the cuBLAS launches interleaved with
that rung in the same run, which is fairer than dividing by a cuBLAS median from other runs.

A cuBLAS time is trusted only when the host's work stayed out of its timing window. Timed as one
``cupy.matmul`` between two CUDA events, it can also hold cuBLAS's host dispatch: the H100 ladder
file of 2026-11-25 has HGEMM at 1024^3 taking 64 us, where the same call timed after a GPU-side
wait takes 8 us. Files from before the ladder timed cuBLAS that way (``baseline_timing:
"gpu_hold"``, kernels/ladder/bench.py) are trusted only where cuBLAS took at least
``UNHELD_TRUSTED_MS``: there a dispatch of up to ~60 us is at most 6 %.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BASELINES = {"f32": "cublas_sgemm", "f16": "cublas_hgemm"}
BASELINE_NAMES = {"cublas_sgemm": "cuBLAS SGEMM", "cublas_hgemm": "cuBLAS HGEMM"}
UNHELD_TRUSTED_MS = 1.0  # see the module's docstring


def size_key(size: object) -> str:
    """``{"M": 4096, "N": 4096, "K": 4096}`` -> "4096"; a non-square size -> "M×N×K"."""
    if isinstance(size, dict) and size:
        values = [str(v) for v in size.values()]
        return values[0] if len(set(values)) == 1 else "×".join(values)
    return str(size or "")


def _volume(size: object) -> float:
    product = 1.0
    for value in (size or {}).values() if isinstance(size, dict) else ():
        try:
            product *= float(value)
        except (TypeError, ValueError):
            return 0.0
    return product


@dataclass
class LadderResults:
    gpu: dict[str, Any]
    date: str
    sizes: list[str]                                     # size keys, smallest problem first
    by_kernel: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)  # kernel -> size key -> entry
    clocks_held: bool | None = None  # True: SM clocks held in every timing window; None: not recorded

    @property
    def gpu_name(self) -> str:
        return str(self.gpu.get("name") or "GPU")

    @property
    def chart_size(self) -> str:
        """The size the overview chart shows: 4096 when measured, else the largest size."""
        return "4096" if "4096" in self.sizes else (self.sizes[-1] if self.sizes else "")

    def entry(self, kernel: str, size: str) -> dict[str, Any] | None:
        return self.by_kernel.get(kernel, {}).get(size)

    def rate(self, kernel: str, size: str) -> float | None:
        entry = self.entry(kernel, size)
        return _number(entry.get("work_rate")) if entry else None

    def baseline_trusted(self, baseline: str, size: str) -> bool:
        """Whether the cuBLAS time at ``size`` holds no host dispatch (module docstring)."""
        entry = self.entry(baseline, size)
        if entry is None:
            return False
        if entry.get("baseline_timing") == "gpu_hold":
            return True
        ms = _number(entry.get("median_ms"))
        return ms is not None and ms >= UNHELD_TRUSTED_MS

    def baseline_rate(self, baseline: str, size: str) -> float | None:
        """cuBLAS's TFLOP/s at ``size``, or None when its time is not trusted."""
        return self.rate(baseline, size) if self.baseline_trusted(baseline, size) else None

    def ratio(self, kernel: str, size: str) -> float | None:
        """A rung's share of its cuBLAS at ``size`` (``vs_baseline``), or None when that cuBLAS
        time is not trusted."""
        entry = self.entry(kernel, size)
        if entry is None or not self.baseline_trusted(str(entry.get("baseline") or ""), size):
            return None
        return _number(entry.get("vs_baseline"))

    def any_entry(self, kernel: str) -> dict[str, Any] | None:
        entries = self.by_kernel.get(kernel) or {}
        return next(iter(entries.values()), None)


def _number(value: Any) -> float | None:  # a JSON value
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and number not in (float("inf"), float("-inf")) else None


def newest_ladder(documents: list[dict[str, Any]]) -> LadderResults | None:
    """The newest ladder results among parsed results documents, or None when there are none."""
    ladders = [d for d in documents if d.get("kind") == "ladder" and isinstance(d.get("entries"), list)]
    if not ladders:
        return None
    best_date = max(str(d.get("date", "")) for d in ladders)
    of_date = [d for d in ladders if str(d.get("date", "")) == best_date]
    gpu = of_date[-1].get("gpu") or {}
    # The last file of the date (sorted by name) names the GPU; others of that date must match it.
    of_date = [d for d in of_date if (d.get("gpu") or {}).get("name") == gpu.get("name")]
    by_kernel: dict[str, dict[str, dict[str, Any]]] = {}
    volumes: dict[str, float] = {}
    for doc in of_date:
        for entry in doc["entries"]:
            if not isinstance(entry, dict) or not entry.get("kernel"):
                continue
            key = size_key(entry.get("size"))
            volumes[key] = _volume(entry.get("size"))
            by_kernel.setdefault(str(entry["kernel"]), {})[key] = entry  # a later file overrides
    sizes = sorted(volumes, key=lambda k: (volumes[k], k))
    held = [d.get("clocks_held") for d in of_date if d.get("clocks_held") is not None]
    clocks_held = (all(held) if held else None)
    return LadderResults(gpu=dict(gpu), date=best_date, sizes=sizes, by_kernel=by_kernel, clocks_held=clocks_held)
