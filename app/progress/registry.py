"""Levels and achievements, as data. The accounts work adds the rules that award them.

Levels: 100 XP leaves level 0; each next level costs 50 XP more than the one before
(0→1: 100, 1→2: 150, 2→3: 200, ...).
"""
from __future__ import annotations

from dataclasses import dataclass

from app.core import vocabulary
from app.core.config import LANGUAGES

FIRST_LEVEL_XP = 100
LEVEL_STEP_XP = 50

# Names of levels 0..N; levels beyond the list keep the last name with a number.
LEVEL_NAMES: list[dict[str, str]] = [
    {"en": "Beginner", "ko": "입문"},
    {"en": "Apprentice", "ko": "견습"},
    {"en": "Thread Wrangler", "ko": "스레드 조련사"},
    {"en": "Warp Tamer", "ko": "워프 조율사"},
    {"en": "Tile Builder", "ko": "타일 설계자"},
    {"en": "Kernel Tuner", "ko": "커널 튜너"},
    {"en": "Roofline Climber", "ko": "루프라인 등반가"},
    {"en": "Kernel Artisan", "ko": "커널 장인"},
]


@dataclass(frozen=True)
class LevelState:
    level: int
    name: str
    xp: int
    xp_into_level: int
    xp_for_next: int  # XP needed to go from this level to the next

    @property
    def xp_to_go(self) -> int:
        return self.xp_for_next - self.xp_into_level

    @property
    def percent(self) -> int:
        return int(100 * self.xp_into_level / self.xp_for_next)


def xp_to_leave(level: int) -> int:
    return FIRST_LEVEL_XP + LEVEL_STEP_XP * level


def level_name(level: int, lang: str) -> str:
    if level < len(LEVEL_NAMES):
        return LEVEL_NAMES[level][lang]
    return f"{LEVEL_NAMES[-1][lang]} {level - len(LEVEL_NAMES) + 2}"


def level_for_xp(xp: int, lang: str) -> LevelState:
    if xp < 0:
        raise ValueError("XP cannot be negative")
    level, remaining = 0, xp
    while remaining >= xp_to_leave(level):
        remaining -= xp_to_leave(level)
        level += 1
    return LevelState(level, level_name(level, lang), xp, remaining, xp_to_leave(level))


@dataclass(frozen=True)
class Achievement:
    """Name and description are the vocabulary's (app/core/vocabulary.py, translated in ko.po)."""

    id: str
    icon: str

    @property
    def name(self) -> dict[str, str]:
        return {lang: vocabulary.label(vocabulary.ACHIEVEMENT, self.id, lang) for lang in LANGUAGES}

    @property
    def description(self) -> dict[str, str]:
        return {lang: vocabulary.explain(vocabulary.ACHIEVEMENT, self.id, lang) for lang in LANGUAGES}


ACHIEVEMENTS: tuple[Achievement, ...] = (
    Achievement("first_lesson", "📖"),
    Achievement("all_lessons", "🎓"),
    Achievement("first_compile", "🛠️"),
    Achievement("first_correct", "✅"),
    Achievement("beat_naive", "🐢"),
    Achievement("beat_tiled", "🧱"),
    Achievement("double_tiled", "🚀"),
    Achievement("bilingual", "🌐"),
    Achievement("streak_3", "🔥"),
    Achievement("streak_7", "⚡"),
    Achievement("first_comment", "💬"),
    Achievement("helpful_reply", "🤝"),
)

ACHIEVEMENTS_BY_ID = {a.id: a for a in ACHIEVEMENTS}
