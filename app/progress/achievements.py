"""Earned achievements: the rules (app/progress/rules.py) replayed over the event log, the newly
earned ones stored once, those a grader's override took away revoked, and the announcement of
each new one on the next page the learner sees. Callers commit the session.
"""
from __future__ import annotations

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core.clock import zone
from app.core.db import rows_changed
from app.progress import events as ev
from app.progress import verdicts
from app.progress.models import UserAchievement
from app.progress.once import insert_once
from app.progress.registry import ACHIEVEMENTS_BY_ID, Achievement
from app.progress.rules import RuleContext, evaluate


def earned_achievements(session: Session, user: User) -> list[UserAchievement]:
    return list(session.scalars(select(UserAchievement).where(UserAchievement.user_id == user.id,
                                                              UserAchievement.epoch == user.progress_epoch)
                                .order_by(UserAchievement.earned_at)))


def award_achievements(session: Session, user: User, lesson_slugs: frozenset[str]) -> list[Achievement]:
    """Replay the rules over the current epoch's effective events; store and return the newly
    earned ones, and revoke those a grader's override took away (app.progress.verdicts)."""
    return settle_achievements(session, user, lesson_slugs)[0]


def settle_achievements(session: Session, user: User,
                        lesson_slugs: frozenset[str]) -> tuple[list[Achievement], list[Achievement]]:
    """(newly earned, revoked). Rules run over ``verdicts.effective(events)``; an achievement is
    revoked only when it holds on the automatic verdicts and not on the effective ones, with a
    compensating ``achievement_revoked`` event. Deleting the row is one statement: of two
    concurrent revocations one deletes it and records the event, the other does nothing."""
    ctx = RuleContext(lesson_slugs=lesson_slugs, tz=zone(user.tz))
    log = ev.current_events(session, user)
    earned = evaluate(verdicts.effective(log), ctx)
    held = {a.achievement_id: a for a in earned_achievements(session, user)}
    new = []
    for achievement_id, when in earned.items():
        if achievement_id in held:
            continue
        if insert_once(session, UserAchievement, user_id=user.id, epoch=user.progress_epoch,
                       achievement_id=achievement_id, earned_at=when, announced=False) is not None:
            new.append(ACHIEVEMENTS_BY_ID[achievement_id])
    revoked = []
    if verdicts.overrides(log):
        for achievement_id in sorted(verdicts.lost_achievements(evaluate(log, ctx), earned, held)):
            row = held[achievement_id]
            if rows_changed(session, delete(UserAchievement).where(UserAchievement.id == row.id)):
                ev.record_event(session, user, ev.ACHIEVEMENT_REVOKED, subject=achievement_id,
                                dedupe=f"{achievement_id}:{row.id}",
                                data={"earned_at": row.earned_at.isoformat(), "reason": "verdict_overridden"})
                if achievement_id in ACHIEVEMENTS_BY_ID:
                    revoked.append(ACHIEVEMENTS_BY_ID[achievement_id])
    return new, revoked


def take_announcements(session: Session, user: User) -> list[Achievement]:
    """Earned but not yet shown: the page that shows them marks them shown."""
    rows = list(session.scalars(select(UserAchievement).where(UserAchievement.user_id == user.id,
                                                              UserAchievement.announced.is_(False))))
    if not rows:
        return []
    session.execute(update(UserAchievement).where(UserAchievement.id.in_([r.id for r in rows]))
                    .values(announced=True))
    return [ACHIEVEMENTS_BY_ID[r.achievement_id] for r in rows if r.achievement_id in ACHIEVEMENTS_BY_ID]


def mark_announced(session: Session, user: User, achievements: list[Achievement]) -> None:
    if achievements:
        session.execute(update(UserAchievement).where(
            UserAchievement.user_id == user.id, UserAchievement.epoch == user.progress_epoch,
            UserAchievement.achievement_id.in_([a.id for a in achievements])).values(announced=True))
