"""Exercise titles and XP from kernels/<id>/spec.yaml (contract B), re-read when it changes."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class ExerciseInfo:
    id: str
    title: dict[str, str]
    pass_xp: int | None
    tiers: tuple[tuple[str, float, int], ...]  # (against, speedup, xp)
    tier_ids: tuple[str, ...] = ()  # the tiers' ids, in the same order (XP history names "gemm:beat_tiled")


# A spec is stat()ed at most this often per exercise: lesson pages ask on every view, and the
# stat() was ~17 % of the event loop's time under wrk (profiled with py-spy, issue 17 item 10).
RECHECK_S = 1.0


class ExerciseInfoCache:
    def __init__(self, kernels_dir: Path, recheck_s: float = RECHECK_S):
        self.kernels_dir = kernels_dir
        self.recheck_s = recheck_s
        self._cache: dict[str, tuple[int, ExerciseInfo | None]] = {}
        self._checked: dict[str, float] = {}

    def get(self, exercise_id: str) -> ExerciseInfo | None:
        cached = self._cache.get(exercise_id)
        now = time.monotonic()
        if cached and now - self._checked.get(exercise_id, -1e9) < self.recheck_s:
            return cached[1]
        path = self.kernels_dir / exercise_id / "spec.yaml"
        try:
            mtime = path.stat().st_mtime_ns
        except OSError:
            return None
        self._checked[exercise_id] = now
        if cached and cached[0] == mtime:
            return cached[1]
        info = None
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            title = raw.get("title") if isinstance(raw.get("title"), dict) else {}
            xp = raw.get("xp") if isinstance(raw.get("xp"), dict) else {}
            listed = [t for t in xp.get("tiers", []) if isinstance(t, dict)]
            tiers = tuple((str(t.get("against", "")), float(t.get("speedup", 0)), int(t.get("xp", 0))) for t in listed)
            info = ExerciseInfo(exercise_id, {k: str(v) for k, v in title.items()},
                                int(xp["pass"]) if "pass" in xp else None, tiers,
                                tuple(str(t.get("id", "")) for t in listed))
        except (OSError, yaml.YAMLError, TypeError, ValueError):
            info = None  # a broken spec is the engine's to report; the lesson still serves
        self._cache[exercise_id] = (mtime, info)
        return info
