"""Response models of the progress and account API (/api/me, /api/progress/..., /api/users/{name}/progress,
/api/xp/adjust, /api/admin/users/{name}/role). Times are UTC ISO 8601 with a trailing Z."""
from __future__ import annotations

from pydantic import Field

from app.core.answers import Answer


class ProgressUser(Answer):
    username: str
    role: str = Field(examples=["learner"])
    tz: str = Field(examples=["Asia/Seoul"], description="the IANA time zone pages show times in")


class Strip(Answer):
    """The numbers of the progress strip at the top of every page."""
    level: int
    level_name: str = Field(description="in the reader's language")
    xp: int
    xp_into_level: int
    xp_for_next: int = Field(description="XP from this level to the next")
    xp_to_go: int
    level_percent: int = Field(ge=0, le=100)
    lessons_done: int
    lessons_total: int
    achievements_done: int
    achievements_total: int
    percent_complete: int = Field(ge=0, le=100)
    completed: list[str] = Field(description="slugs of the completed lessons, sorted")


class EarnedAchievement(Answer):
    id: str
    earned_at: str


class NewAchievement(Answer):
    """An achievement this request earned, for the browser to announce."""
    id: str
    icon: str
    name: str = Field(description="in the reader's language")
    description: str


class Progress(Answer):
    user: ProgressUser
    strip: Strip
    strip_html: str = Field(description="the strip rendered, for the page to swap in")
    lessons: dict[str, str] = Field(description="lesson slug -> when it was completed")
    achievements: list[EarnedAchievement]


class LessonCompleted(Progress):
    new_achievements: list[NewAchievement]


class ProgressMerged(Progress):
    merged: list[str] = Field(description="slugs whose completion came from (or got earlier through) the browser")
    ignored: list[str] = Field(description="unknown slugs or unreadable times")
    new_achievements: list[NewAchievement]


class XpAdjusted(Answer):
    applied: bool = Field(description="false: an adjustment with this reference was applied before")
    xp: int = Field(description="the learner's XP now")


class RoleChanged(Answer):
    username: str
    role: str
