"""The rule behind each of the twelve achievements: a pure function over the event log.

A rule reads events (sorted by time) and returns when the achievement was earned (the time of
the event that satisfied it) or None. Pure functions make rules testable on synthetic events
and replayable over a learner's whole history. Names, icons and texts live in registry.py.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.progress import events as ev
from app.progress.events import EventView
from app.progress.registry import ACHIEVEMENTS

# What counts as "studying" on a day, for streaks.
STUDY_KINDS = frozenset({ev.LESSON_OPENED, ev.LESSON_COMPLETED, ev.LANGUAGE_READ, ev.EXERCISE_ATTEMPTED,
                         ev.EXERCISE_PASSED, ev.COMMENT_POSTED})


@dataclass(frozen=True)
class RuleContext:
    lesson_slugs: frozenset[str]  # the published catalog, for "all lessons"
    tz: dt.tzinfo = dt.UTC  # the learner's zone, for calendar-day streaks


Rule = Callable[[list[EventView], RuleContext], "dt.datetime | None"]


def _first(events: Iterable[EventView], test: Callable[[EventView], bool]) -> dt.datetime | None:
    for event in events:
        if test(event):
            return event.occurred_at
    return None


def first_lesson(events: list[EventView], ctx: RuleContext) -> dt.datetime | None:
    return _first(events, lambda e: e.kind == ev.LESSON_COMPLETED)


def all_lessons(events: list[EventView], ctx: RuleContext) -> dt.datetime | None:
    if not ctx.lesson_slugs:
        return None
    missing = set(ctx.lesson_slugs)
    for e in events:
        if e.kind == ev.LESSON_COMPLETED and e.subject in missing:
            missing.discard(e.subject)
            if not missing:
                return e.occurred_at
    return None


def first_compile(events: list[EventView], ctx: RuleContext) -> dt.datetime | None:
    return _first(events, lambda e: e.kind == ev.EXERCISE_COMPILED
                  or (e.kind == ev.EXERCISE_ATTEMPTED and bool(e.data.get("compiled"))))


def first_correct(events: list[EventView], ctx: RuleContext) -> dt.datetime | None:
    return _first(events, lambda e: e.kind == ev.EXERCISE_PASSED)


def _speedup(against: str, at_least: float) -> Rule:
    """Faster with confidence: the LOWER end of the speedup's CI (the event's value) clears the bar."""
    def rule(events: list[EventView], ctx: RuleContext) -> dt.datetime | None:
        return _first(events, lambda e: e.kind == ev.SPEEDUP_REACHED and e.data.get("against") == against
                      and e.value is not None and e.value >= at_least)
    return rule


def bilingual(events: list[EventView], ctx: RuleContext) -> dt.datetime | None:
    """One lesson read in both languages, as the server saw it: a visitor's browser can claim any
    language it likes when its local progress is merged, so those claims do not count."""
    langs: dict[str, set[str]] = {}
    for e in events:
        if e.kind == ev.LANGUAGE_READ and e.lang and e.source != "browser":
            seen = langs.setdefault(e.subject, set())
            seen.add(e.lang)
            if {"ko", "en"} <= seen:
                return e.occurred_at
    return None


def local_day(moment: dt.datetime, tz: dt.tzinfo) -> dt.date:
    return moment.replace(tzinfo=dt.UTC).astimezone(tz).date()


def _streak(days_needed: int) -> Rule:
    """Consecutive local days on which the SERVER saw the learner study (``seen_at``, not ``occurred_at``).

    Local progress merged at sign-in keeps its browser times for completions (earliest wins), but a
    browser can claim any past date: seven merges with ever-earlier dates made a new account a 7-day
    streak in one second. Clamping claims to the account's age would still let an
    account a week old forge a week; a streak claims the learner came back day after day, which only
    days the server itself saw can show. A merge counts as study on the day it happens.
    """
    def rule(events: list[EventView], ctx: RuleContext) -> dt.datetime | None:
        run, last_day = 0, None
        for e in sorted((e for e in events if e.kind in STUDY_KINDS), key=lambda e: e.seen_at):
            day = local_day(e.seen_at, ctx.tz)
            if day == last_day:
                continue
            run = run + 1 if last_day is not None and day == last_day + dt.timedelta(days=1) else 1
            last_day = day
            if run >= days_needed:
                return e.seen_at
        return None
    return rule


def first_comment(events: list[EventView], ctx: RuleContext) -> dt.datetime | None:
    return _first(events, lambda e: e.kind == ev.COMMENT_POSTED)


def helpful_reply(events: list[EventView], ctx: RuleContext) -> dt.datetime | None:
    # the mark must come from the comment's author, who is someone else than the replier
    return _first(events, lambda e: e.kind == ev.REPLY_MARKED_HELPFUL
                  and e.data.get("marked_by") is not None and e.data.get("marked_by") != e.data.get("reply_author"))


RULES: dict[str, Rule] = {
    "first_lesson": first_lesson,
    "all_lessons": all_lessons,
    "first_compile": first_compile,
    "first_correct": first_correct,
    "beat_naive": _speedup("naive", 1.0 + 1e-9),
    "beat_tiled": _speedup("tiled", 1.0 + 1e-9),
    "double_tiled": _speedup("tiled", 2.0),
    "bilingual": bilingual,
    "streak_3": _streak(3),
    "streak_7": _streak(7),
    "first_comment": first_comment,
    "helpful_reply": helpful_reply,
}
assert set(RULES) == {a.id for a in ACHIEVEMENTS}, "every achievement in the registry needs exactly one rule"


def evaluate(events: list[EventView], ctx: RuleContext) -> dict[str, dt.datetime]:
    """Every achievement the events earn, with the time each was earned. Events must be time-ordered."""
    ordered = sorted(events, key=lambda e: e.occurred_at)
    earned = {}
    for achievement_id, rule in RULES.items():
        when = rule(ordered, ctx)
        if when is not None:
            earned[achievement_id] = when
    return earned
