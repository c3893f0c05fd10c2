"""A learner's progress as the pages show it: the strip (level, XP, lessons and achievements) and
the lessons completed, from real data; and the reset that starts a new epoch.

The counts come from the catalog and the achievement registry, so they follow the content instead
of being typed into templates. A visitor (no account) is at zero.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.lessons.catalog import Lesson
from app.progress import events as ev
from app.progress import xp
from app.progress.models import Event, UserAchievement
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


def completed_lessons(session: Session, user: User) -> dict[str, dt.datetime]:
    """slug -> earliest completion time in the current epoch."""
    rows = session.execute(select(Event.subject, func.min(Event.occurred_at))
                           .where(Event.user_id == user.id, Event.epoch == user.progress_epoch,
                                  Event.kind == ev.LESSON_COMPLETED).group_by(Event.subject))
    return {slug: when for slug, when in rows}


def learner_state(session: Session, user: User, lessons: list[Lesson], lang: str) -> LearnerState:
    slugs = {lesson.slug for lesson in lessons}
    done = frozenset(completed_lessons(session, user)) & slugs
    achieved = session.scalar(select(func.count()).select_from(UserAchievement)
                              .where(UserAchievement.user_id == user.id,
                                     UserAchievement.epoch == user.progress_epoch)) or 0
    return LearnerState(level_for_xp(xp.total_xp(session, user), lang), len(done), len(lessons),
                        int(achieved), len(ACHIEVEMENTS), done)


def strip_json(state: LearnerState) -> dict[str, Any]:
    """The strip's numbers for the browser to repaint without a reload."""
    lv = state.level
    return {"level": lv.level, "level_name": lv.name, "xp": lv.xp, "xp_into_level": lv.xp_into_level,
            "xp_for_next": lv.xp_for_next, "xp_to_go": lv.xp_to_go, "level_percent": lv.percent,
            "lessons_done": state.lessons_done, "lessons_total": state.lessons_total,
            "achievements_done": state.achievements_done, "achievements_total": state.achievements_total,
            "percent_complete": state.percent_complete, "completed": sorted(state.completed_slugs)}


def reset_progress(session: Session, user: User) -> None:
    """Void the XP, start a new epoch: old events and achievements stay on record, uncounted."""
    xp.void_all(session, user)
    user.progress_epoch += 1
    session.flush()
