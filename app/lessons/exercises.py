"""Exercise specs for the pages (titles, XP, tiers): kernels/<id>/spec.yaml as the grading engine
loads and validates it (kernels.engine.exercise.load_exercise), re-read when it changes."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.core.filecache import FileCache

if TYPE_CHECKING:
    from kernels.engine.exercise import Exercise

# A spec is stat()ed at most this often per exercise: lesson pages ask on every view, and the
# stat() was ~17 % of the event loop's time under wrk (profiled with py-spy).
RECHECK_S = 1.0


class ExerciseInfoCache:
    """``get(id)``: the engine's Exercise (id, title, pass_xp, tiers, ...), or None when the spec
    is absent or broken (``python -m app lessons check`` reports why; the lesson still serves)."""

    def __init__(self, kernels_dir: Path, recheck_s: float = RECHECK_S):
        self.kernels_dir = kernels_dir
        self._files: FileCache[str, Exercise | None] = FileCache(
            lambda exercise_id: [self.kernels_dir / exercise_id / "spec.yaml"], self._load, recheck_s=recheck_s)

    def get(self, exercise_id: str) -> Exercise | None:
        return self._files.get(exercise_id)

    def _load(self, exercise_id: str) -> Exercise | None:
        from kernels.engine.exercise import ExerciseSpecError, UnknownExercise, load_exercise

        try:
            return load_exercise(exercise_id, root=self.kernels_dir)
        except (UnknownExercise, ExerciseSpecError, ValueError, OSError):  # a spec not UTF-8 is a ValueError
            return None
