"""Every achievement's rule, on synthetic events (the comments work does not exist yet)."""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from app.progress import events as ev
from app.progress.events import EventView
from app.progress.registry import ACHIEVEMENTS
from app.progress.rules import RULES, RuleContext, evaluate

T0 = dt.datetime(2026, 11, 1, 12, 0)
SLUGS = frozenset({"a", "b", "c", "d", "e"})
CTX = RuleContext(lesson_slugs=SLUGS)


def e(kind, minutes=0, subject="", lang=None, value=None, **data):
    return EventView(kind, T0 + dt.timedelta(minutes=minutes), subject, lang, value, data)


def earned(events, ctx=CTX):
    return evaluate(events, ctx)


def test_every_registry_achievement_has_a_rule():
    assert set(RULES) == {a.id for a in ACHIEVEMENTS} and len(RULES) == 12


def test_no_events_no_achievements():
    assert earned([]) == {}


def test_first_lesson_time_is_the_first_completion():
    got = earned([e(ev.LESSON_OPENED, 0, "a"), e(ev.LESSON_COMPLETED, 5, "a"), e(ev.LESSON_COMPLETED, 9, "b")])
    assert got["first_lesson"] == T0 + dt.timedelta(minutes=5)
    assert "all_lessons" not in got


def test_all_lessons_needs_every_published_lesson():
    four = [e(ev.LESSON_COMPLETED, i, s) for i, s in enumerate("abcd")]
    assert "all_lessons" not in earned(four + [e(ev.LESSON_COMPLETED, 9, "zzz")])  # unknown slugs do not count
    got = earned(four + [e(ev.LESSON_COMPLETED, 20, "e")])
    assert got["all_lessons"] == T0 + dt.timedelta(minutes=20)
    assert "all_lessons" not in earned(four, RuleContext(lesson_slugs=frozenset()))


def test_first_compile_needs_a_compiled_attempt():
    assert "first_compile" not in earned([e(ev.EXERCISE_ATTEMPTED, 0, "gemm", compiled=False)])
    got = earned([e(ev.EXERCISE_ATTEMPTED, 0, "gemm", compiled=False), e(ev.EXERCISE_ATTEMPTED, 3, "gemm", compiled=True)])
    assert got["first_compile"] == T0 + dt.timedelta(minutes=3)
    assert "first_correct" not in got


def test_first_correct():
    assert "first_correct" in earned([e(ev.EXERCISE_PASSED, 0, "gemm")])


@pytest.mark.parametrize("against, low, expected", [
    ("naive", 0.98, set()),
    ("naive", 1.01, {"beat_naive"}),
    ("tiled", 1.01, {"beat_tiled"}),
    ("tiled", 1.99, {"beat_tiled"}),
    ("tiled", 2.0, {"beat_tiled", "double_tiled"}),
    ("baseline", 5.0, set()),  # cuBLAS context ratio is not a goal
])
def test_speedup_rules_use_the_lower_confidence_bound(against, low, expected):
    got = set(earned([e(ev.SPEEDUP_REACHED, 0, "gemm", value=low, against=against)]))
    assert got == expected


def test_bilingual_needs_both_languages_of_the_same_lesson():
    assert "bilingual" not in earned([e(ev.LANGUAGE_READ, 0, "a", "ko"), e(ev.LANGUAGE_READ, 1, "b", "en")])
    got = earned([e(ev.LANGUAGE_READ, 0, "a", "ko"), e(ev.LANGUAGE_READ, 1, "b", "en"), e(ev.LANGUAGE_READ, 7, "a", "en")])
    assert got["bilingual"] == T0 + dt.timedelta(minutes=7)


def days(*offsets, hour=12, kind=ev.LESSON_OPENED):
    return [EventView(kind, dt.datetime(2026, 11, 1, hour) + dt.timedelta(days=d), "a") for d in offsets]


def test_three_day_streak_and_a_gap_restarts_it():
    assert "streak_3" not in earned(days(0, 1, 3, 4))
    got = earned(days(0, 1, 3, 4, 5))
    assert got["streak_3"] == dt.datetime(2026, 11, 6, 12) and "streak_7" not in got
    assert "streak_3" in earned(days(0, 0, 1, 1, 2))  # several events a day count once


def test_seven_day_streak():
    assert "streak_7" not in earned(days(0, 1, 2, 3, 4, 5))
    assert earned(days(*range(7)))["streak_7"] == dt.datetime(2026, 11, 7, 12)


def test_streak_days_are_calendar_days_in_the_learners_time_zone():
    # 14:00 and 16:00 UTC on consecutive UTC days: in Seoul (UTC+9) those are 23:00 on day 1,
    # 01:00 on day 3 -> not consecutive there; in UTC they are three consecutive days.
    events = [EventView(ev.LESSON_OPENED, dt.datetime(2026, 11, 1, 14), "a"),
              EventView(ev.LESSON_OPENED, dt.datetime(2026, 11, 2, 16), "a"),
              EventView(ev.LESSON_OPENED, dt.datetime(2026, 11, 3, 16), "a")]
    assert "streak_3" in earned(events)
    seoul = RuleContext(lesson_slugs=SLUGS, tz=ZoneInfo("Asia/Seoul"))
    assert "streak_3" not in earned(events, seoul)
    # and the other way round: 23:30 UTC, 00:30 UTC next day, ... are one Seoul day apart each
    close = [EventView(ev.LESSON_OPENED, dt.datetime(2026, 11, 1, 14, 30), "a"),
             EventView(ev.LESSON_OPENED, dt.datetime(2026, 11, 1, 15, 30), "a"),  # 00:30 KST next day
             EventView(ev.LESSON_OPENED, dt.datetime(2026, 11, 2, 15, 30), "a")]
    assert "streak_3" in earned(close, seoul) and "streak_3" not in earned(close)


def test_streaks_ignore_non_study_events():
    events = days(0, 1, kind=ev.LESSON_OPENED) + days(2, kind=ev.SPEEDUP_REACHED)
    assert "streak_3" not in earned(events)


def test_first_comment():
    assert "first_comment" in earned([e(ev.COMMENT_POSTED, 0, "17")])


def test_helpful_reply_needs_the_mark_from_someone_else():
    assert "helpful_reply" not in earned([e(ev.REPLY_MARKED_HELPFUL, 0, "5", marked_by=1, reply_author=1)])
    assert "helpful_reply" not in earned([e(ev.REPLY_MARKED_HELPFUL, 0, "5", reply_author=1)])
    assert "helpful_reply" in earned([e(ev.REPLY_MARKED_HELPFUL, 0, "5", marked_by=2, reply_author=1)])


def test_replay_is_order_independent():
    events = days(0, 1, 2) + [e(ev.LESSON_COMPLETED, 1, "a")]
    assert earned(events) == earned(list(reversed(events)))
