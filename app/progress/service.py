"""Progress services: what a deed does (events, XP, achievements), and a learner's state.

Every entry point appends events, pays XP through the ledger (idempotent), then re-runs the
achievement rules and stores newly earned ones. Callers commit the session.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User, utcnow
from app.lessons.catalog import Lesson
from app.progress import events as ev
from app.progress import ledger, verdicts
from app.progress.learner import LearnerState
from app.progress.models import Event, UserAchievement
from app.progress.once import insert_once
from app.progress.registry import ACHIEVEMENTS, ACHIEVEMENTS_BY_ID, Achievement, level_for_xp
from app.progress.rules import RuleContext, evaluate, local_day, zone

EARLIEST_PLAUSIBLE = dt.datetime(2020, 1, 1)


# ---- reading state -------------------------------------------------------------------------

def completed_lessons(session: Session, user: User) -> dict[str, dt.datetime]:
    """slug -> earliest completion time in the current epoch."""
    rows = session.execute(select(Event.subject, func.min(Event.occurred_at))
                           .where(Event.user_id == user.id, Event.epoch == user.progress_epoch,
                                  Event.kind == ev.LESSON_COMPLETED).group_by(Event.subject))
    return {slug: when for slug, when in rows}


def earned_achievements(session: Session, user: User) -> list[UserAchievement]:
    return list(session.scalars(select(UserAchievement).where(UserAchievement.user_id == user.id,
                                                              UserAchievement.epoch == user.progress_epoch)
                                .order_by(UserAchievement.earned_at)))


def learner_state(session: Session, user: User, lessons: list[Lesson], lang: str) -> LearnerState:
    slugs = {lesson.slug for lesson in lessons}
    done = frozenset(completed_lessons(session, user)) & slugs
    achieved = session.scalar(select(func.count()).select_from(UserAchievement)
                              .where(UserAchievement.user_id == user.id,
                                     UserAchievement.epoch == user.progress_epoch)) or 0
    return LearnerState(level_for_xp(ledger.total_xp(session, user), lang), len(done), len(lessons),
                        int(achieved), len(ACHIEVEMENTS), done)


def strip_json(state: LearnerState) -> dict[str, Any]:
    """The strip's numbers for the browser to repaint without a reload."""
    lv = state.level
    return {"level": lv.level, "level_name": lv.name, "xp": lv.xp, "xp_into_level": lv.xp_into_level,
            "xp_for_next": lv.xp_for_next, "xp_to_go": lv.xp_to_go, "level_percent": lv.percent,
            "lessons_done": state.lessons_done, "lessons_total": state.lessons_total,
            "achievements_done": state.achievements_done, "achievements_total": state.achievements_total,
            "percent_complete": state.percent_complete, "completed": sorted(state.completed_slugs)}


# ---- achievements ------------------------------------------------------------------------------

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
            if session.execute(delete(UserAchievement).where(UserAchievement.id == row.id)).rowcount:
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


# ---- XP: the rule over events, paid through the ledger ----------------------------------------

def exercise_xp_from_specs(kernels_dir=None):
    """exercise id -> (pass XP, {tier id: XP}) from kernels/<id>/spec.yaml (engine loader)."""
    from kernels.engine import load_exercise
    from kernels.engine.exercise import ExerciseSpecError, UnknownExercise

    def lookup(exercise_id: str):
        try:
            spec = load_exercise(exercise_id, kernels_dir) if kernels_dir else load_exercise(exercise_id)
        except (UnknownExercise, ExerciseSpecError, OSError):
            return None
        return spec.pass_xp, {t.id: t.xp for t in spec.tiers}
    return lookup


def settle_xp(session: Session, user: User, *, lesson_xp: dict[str, int] | None = None, kernels_dir=None) -> int:
    """Pay every deed the current epoch's events are worth and that is not paid yet; returns XP paid."""
    from app.progress.xp_rules import deeds

    paid = 0
    events = verdicts.effective(ev.current_events(session, user))
    for deed in deeds(events, lesson_xp or {}, exercise_xp_from_specs(kernels_dir)):
        entry = ledger.pay(session, user, deed.source, deed.source_id, deed.amount)
        paid += entry.amount if entry else 0
    return paid


def replay_history(session: Session, user: User, lessons: list[Lesson], kernels_dir=None) -> dict[str, Any]:
    """Re-run every XP and achievement rule over the learner's history (e.g. after a new rule or
    a content change that adds XP). Idempotent: what was paid or earned stays, nothing twice."""
    paid = settle_xp(session, user, lesson_xp={lesson.slug: lesson.meta.xp for lesson in lessons}, kernels_dir=kernels_dir)
    return {"xp_paid": paid, "achievements": award_achievements(session, user, frozenset(lesson.slug for lesson in lessons))}


# ---- lesson reading (the only progress a browser may report) ----------------------------------

def record_lesson_opened(session: Session, user: User, lesson: Lesson, lang: str) -> None:
    """One 'opened' event per lesson, language and local day: enough for streaks, no flood."""
    day = local_day(utcnow(), zone(user.tz)).isoformat()
    ev.record_event(session, user, ev.LESSON_OPENED, subject=lesson.slug, lang=lang,
                    dedupe=f"{lesson.slug}:{lang}:{day}")


def complete_lesson(session: Session, user: User, lesson: Lesson, lang: str | None, *,
                    at: dt.datetime | None = None, source: str = "server") -> bool:
    """Record a completion (explicit or read to the end) and pay the lesson's XP once.

    Completion time is the earliest ever reported: a later report adds nothing; an earlier one
    (e.g. from a visitor's browser) adds an event whose time becomes the new minimum.
    """
    at = clamp_time(at)
    previous = completed_lessons(session, user).get(lesson.slug)
    added = False
    if previous is None or at < previous:
        ev.record_event(session, user, ev.LESSON_COMPLETED, subject=lesson.slug, lang=lang, source=source,
                        occurred_at=at, dedupe=f"{lesson.slug}:{at.isoformat()}")
        added = True
    if lang in ("ko", "en"):
        ev.record_event(session, user, ev.LANGUAGE_READ, subject=lesson.slug, lang=lang, source=source,
                        occurred_at=at, dedupe=f"{lesson.slug}:{lang}")
    settle_xp(session, user, lesson_xp={lesson.slug: lesson.meta.xp})
    return added


def clamp_time(at: dt.datetime | None) -> dt.datetime:
    """A browser's clock is not trusted: no future times, nothing before the site existed."""
    now = utcnow()
    if at is None:
        return now
    if at.tzinfo is not None:
        at = at.astimezone(dt.UTC).replace(tzinfo=None)
    return min(max(at, EARLIEST_PLAUSIBLE), now)


@dataclass
class MergeReport:
    merged: list[str]  # slugs whose completion came from (or got earlier through) the browser
    ignored: list[str]  # unknown slugs or unreadable times


def merge_browser_progress(session: Session, user: User, lessons: list[Lesson], payload: Any) -> MergeReport:
    """Union of the visitor's local progress and the account: nothing is lost, earliest time wins.

    ``payload`` is the localStorage object: {"completed": {slug: ISO time or date}, "read": {slug: [langs]}}.
    """
    by_slug = {item.slug: item for item in lessons}
    report = MergeReport([], [])
    completed = payload.get("completed") if isinstance(payload, dict) else None
    read = payload.get("read") if isinstance(payload, dict) else None
    if isinstance(completed, dict):
        for slug, stamp in list(completed.items())[:200]:
            lesson = by_slug.get(slug) if isinstance(slug, str) else None
            when = parse_time(stamp)
            if lesson is None or when is None:
                report.ignored.append(str(slug)[:80])
                continue
            if complete_lesson(session, user, lesson, None, at=when, source="browser"):
                report.merged.append(slug)
    if isinstance(read, dict):
        for slug, langs in list(read.items())[:200]:
            lesson = by_slug.get(slug) if isinstance(slug, str) else None
            if lesson is None or not isinstance(langs, list):
                continue
            for lang in langs:
                if lang in ("ko", "en"):
                    ev.record_event(session, user, ev.LANGUAGE_READ, subject=slug, lang=lang, source="browser",
                                    dedupe=f"{slug}:{lang}")
    return report


def parse_time(stamp: Any) -> dt.datetime | None:
    if not isinstance(stamp, str) or len(stamp) > 40:
        return None
    text = stamp.strip().replace("Z", "+00:00")
    try:
        if len(text) == 10:
            return dt.datetime.combine(dt.date.fromisoformat(text), dt.time())
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


# ---- grading results (called by the submission flow) --------------------------------------------

COMPILED_VERDICTS = {"WRONG_ANSWER", "RUNTIME_ERROR", "TIME_LIMIT", "PASSED"}


def record_grading_result(session: Session, user_id: int, exercise_id: str, submission_id: int | str,
                          result, *, lesson_slugs: frozenset[str] = frozenset(),
                          kernels_dir=None) -> dict[str, Any]:
    """Turn one grader Result (kernels/engine/result.py) into events, XP and achievements.

    XP amounts come from the exercise spec (kernels/<id>/spec.yaml through load_exercise), never
    from the Result or from code: the pass once per exercise, each tier once when the Result
    says it was met. Safe to call twice for the same submission (nothing pays or counts twice).
    Returns {"xp_paid": int, "achievements": [Achievement, ...]}. The caller commits.
    """
    user = session.get(User, user_id)
    if user is None:
        raise LookupError(f"no user {user_id}")
    verdict = getattr(result.verdict, "value", result.verdict)
    compiled = verdict in COMPILED_VERDICTS or (verdict == "UNAVAILABLE" and result.resources is not None)
    key = f"submission:{submission_id}"
    ev.record_event(session, user, ev.EXERCISE_ATTEMPTED, subject=exercise_id, source="grader", dedupe=key,
                    data={"submission": str(submission_id), "verdict": verdict, "compiled": compiled})
    paid = 0
    if verdict == "PASSED":
        # which tiers were met is the grader's word; what they are worth is the spec's
        ev.record_event(session, user, ev.EXERCISE_PASSED, subject=exercise_id, source="grader", dedupe=key,
                        data={"submission": str(submission_id), "tiers_met": [t.id for t in result.tiers if t.met]})
        for speedup in result.speedups:
            if speedup.against in ("naive", "tiled", "baseline"):
                ev.record_event(session, user, ev.SPEEDUP_REACHED, subject=exercise_id, source="grader",
                                value=float(speedup.ci_low), dedupe=f"{key}:{speedup.against}",
                                data={"against": speedup.against, "value": speedup.value,
                                      "ci_low": speedup.ci_low, "submission": str(submission_id)})
        paid = settle_xp(session, user, kernels_dir=kernels_dir)
    new = award_achievements(session, user, lesson_slugs)
    return {"xp_paid": paid, "achievements": new}


def record_verdict_override(session: Session, user: User, exercise_id: str, submission_id: int | str, *,
                            review_id: int, before: str | None, after: str, at: dt.datetime,
                            lesson_slugs: frozenset[str] = frozenset(), kernels_dir=None) -> dict[str, Any]:
    """A grader's override, through the same path as a grading: one event in the log, then the
    XP deeds and the achievement rules over the effective events (app.progress.verdicts).

    Pays what the new verdict newly earns (a grader's PASSED pays the exercise's pass deed once);
    what it takes away from the ledger is the caller's compensating entry (app.graders.reviews),
    since only that caller knows the exercise's earlier adjustments. Safe to call twice for one
    audit entry (its dedupe key). Returns {"xp_paid", "achievements", "revoked"}. The caller commits.
    """
    ev.record_event(session, user, ev.VERDICT_OVERRIDDEN, subject=exercise_id, source="grader",
                    dedupe=f"submission:{submission_id}:override:{review_id}", occurred_at=at,
                    data={"submission": str(submission_id), "verdict": after, "before": before,
                          "review": review_id})
    paid = settle_xp(session, user, kernels_dir=kernels_dir)
    new, revoked = settle_achievements(session, user, lesson_slugs)
    return {"xp_paid": paid, "achievements": new, "revoked": revoked}


# ---- comments (the comments work calls these) ---------------------------------------------------

def record_comment_posted(session: Session, user: User, comment_id: int | str,
                          lesson_slugs: frozenset[str] = frozenset()) -> list[Achievement]:
    ev.record_event(session, user, ev.COMMENT_POSTED, subject=str(comment_id), dedupe=f"comment:{comment_id}")
    return award_achievements(session, user, lesson_slugs)


def record_reply_marked_helpful(session: Session, reply_author: User, reply_id: int | str, marked_by: int,
                                lesson_slugs: frozenset[str] = frozenset()) -> list[Achievement]:
    """``marked_by`` is the user id of the comment's author who marked the reply helpful."""
    ev.record_event(session, reply_author, ev.REPLY_MARKED_HELPFUL, subject=str(reply_id),
                    dedupe=f"reply:{reply_id}", data={"marked_by": marked_by, "reply_author": reply_author.id})
    return award_achievements(session, reply_author, lesson_slugs)


# ---- reset ----------------------------------------------------------------------------------------

def reset_progress(session: Session, user: User) -> None:
    """Void the XP, start a new epoch: old events and achievements stay on record, uncounted."""
    ledger.void_all(session, user)
    user.progress_epoch += 1
    session.flush()
