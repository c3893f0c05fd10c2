"""Exercise titles and XP from kernels/<id>/spec.yaml (contract B), re-read when it changes."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from app.core.filecache import FileCache


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
        self._files: FileCache[str, ExerciseInfo | None] = FileCache(
            lambda exercise_id: [self._spec(exercise_id)], self._load, recheck_s=recheck_s)

    def _spec(self, exercise_id: str) -> Path:
        return self.kernels_dir / exercise_id / "spec.yaml"

    def get(self, exercise_id: str) -> ExerciseInfo | None:
        return self._files.get(exercise_id)

    def _load(self, exercise_id: str) -> ExerciseInfo | None:
        try:
            raw = yaml.safe_load(self._spec(exercise_id).read_text(encoding="utf-8")) or {}
            title = raw.get("title") if isinstance(raw.get("title"), dict) else {}
            xp = raw.get("xp") if isinstance(raw.get("xp"), dict) else {}
            listed = [t for t in xp.get("tiers", []) if isinstance(t, dict)]
            tiers = tuple((str(t.get("against", "")), float(t.get("speedup", 0)), int(t.get("xp", 0))) for t in listed)
            return ExerciseInfo(exercise_id, {k: str(v) for k, v in title.items()},
                                int(xp["pass"]) if "pass" in xp else None, tiers,
                                tuple(str(t.get("id", "")) for t in listed))
        except (OSError, yaml.YAMLError, TypeError, ValueError, AttributeError):
            return None  # absent or broken: the engine reports a broken spec; the lesson still serves
