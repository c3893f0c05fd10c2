"""The learner strip: level, XP, lessons and achievements, from real data.

Until accounts exist every visitor is at zero; the counts come from the catalog and the
achievement registry, so they follow the content instead of being typed into templates.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.progress.registry import ACHIEVEMENTS, LevelState, level_for_xp


@dataclass(frozen=True)
class LearnerState:
    level: LevelState
    lessons_done: int
    lessons_total: int
    achievements_done: int
    achievements_total: int
    completed_slugs: frozenset[str] = frozenset()

    @property
    def percent_complete(self) -> int:
        return int(100 * self.lessons_done / self.lessons_total) if self.lessons_total else 0


def visitor_state(lessons_total: int, lang: str) -> LearnerState:
    return LearnerState(level_for_xp(0, lang), 0, lessons_total, 0, len(ACHIEVEMENTS))
