"""Levels and achievements, as data. The accounts work adds the rules that award them.

Levels: 100 XP leaves level 0; each next level costs 50 XP more than the one before
(0→1: 100, 1→2: 150, 2→3: 200, ...).
"""
from __future__ import annotations

from dataclasses import dataclass

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
    id: str
    icon: str
    name: dict[str, str]
    description: dict[str, str]


ACHIEVEMENTS: tuple[Achievement, ...] = (
    Achievement("first_lesson", "📖", {"en": "First page turned", "ko": "첫 장을 넘기다"},
                {"en": "Complete your first lesson.", "ko": "첫 레슨을 완료했어요."}),
    Achievement("all_lessons", "🎓", {"en": "Whole track", "ko": "트랙 완주"},
                {"en": "Complete every lesson of the course.", "ko": "코스의 모든 레슨을 완료했어요."}),
    Achievement("first_compile", "🛠️", {"en": "It compiles", "ko": "컴파일 성공"},
                {"en": "Submit a kernel that compiles.", "ko": "컴파일되는 커널을 처음 제출했어요."}),
    Achievement("first_correct", "✅", {"en": "Right answer", "ko": "정답"},
                {"en": "Submit a kernel that passes every correctness check.", "ko": "모든 정확성 검사를 통과한 커널을 제출했어요."}),
    Achievement("beat_naive", "🐢", {"en": "Faster than naive", "ko": "naive보다 빠르게"},
                {"en": "Beat the naive reference kernel on this server's GPU.", "ko": "이 서버 GPU에서 naive 기준 커널보다 빨랐어요."}),
    Achievement("beat_tiled", "🧱", {"en": "Faster than tiled", "ko": "tiled보다 빠르게"},
                {"en": "Beat the tiled reference kernel.", "ko": "tiled 기준 커널보다 빨랐어요."}),
    Achievement("double_tiled", "🚀", {"en": "Twice the tiles", "ko": "tiled의 두 배"},
                {"en": "Run at least 2× as fast as the tiled reference kernel.", "ko": "tiled 기준 커널보다 2배 이상 빨랐어요."}),
    Achievement("bilingual", "🌐", {"en": "Both languages", "ko": "두 언어로"},
                {"en": "Read the same lesson in Korean and in English.", "ko": "같은 레슨을 한국어와 영어로 모두 읽었어요."}),
    Achievement("streak_3", "🔥", {"en": "Three-day streak", "ko": "3일 연속"},
                {"en": "Study on three days in a row.", "ko": "3일 연속으로 공부했어요."}),
    Achievement("streak_7", "⚡", {"en": "Seven-day streak", "ko": "7일 연속"},
                {"en": "Study on seven days in a row.", "ko": "7일 연속으로 공부했어요."}),
    Achievement("first_comment", "💬", {"en": "First comment", "ko": "첫 댓글"},
                {"en": "Leave your first comment on a lesson.", "ko": "레슨에 첫 댓글을 남겼어요."}),
    Achievement("helpful_reply", "🤝", {"en": "Helpful reply", "ko": "도움이 된 답글"},
                {"en": "Write a reply that another learner marks as helpful.", "ko": "다른 학습자가 도움이 되었다고 표시한 답글을 남겼어요."}),
)

ACHIEVEMENTS_BY_ID = {a.id: a for a in ACHIEVEMENTS}
