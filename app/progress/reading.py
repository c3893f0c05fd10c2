"""Lesson reading, the only progress a browser may report: a lesson opened (once per lesson,
language and local day: enough for streaks, no flood), a lesson completed (its XP paid once), and a
visitor's browser progress merged into the account. Callers commit the session.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core.clock import utcnow, zone
from app.lessons.catalog import Lesson
from app.progress import events as ev
from app.progress.learner import completed_lessons
from app.progress.models import Event
from app.progress.rules import local_day
from app.progress.xp import settle_xp

EARLIEST_PLAUSIBLE = dt.datetime(2020, 1, 1)


def opened_day(user: User) -> str:
    """The reader's local day now (ISO date): 'lesson opened' is stored once per lesson, language and day."""
    return local_day(utcnow(), zone(user.tz)).isoformat()


def record_lesson_opened(session: Session, user: User, lesson: Lesson, lang: str, day: str | None = None) -> Event | None:
    """Store 'lesson opened' for ``day`` (default: today where the reader lives); None when it was
    stored already (its dedupe key)."""
    day = day or opened_day(user)
    return ev.record_event(session, user, ev.LESSON_OPENED, subject=lesson.slug, lang=lang,
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
        try:
            at = at.astimezone(dt.UTC).replace(tzinfo=None)
        except OverflowError:  # within a day of year 1 or 9999: out of the plausible range either way
            at = at.replace(tzinfo=None)
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
                    # its own dedupe key: the server's own record of this reading still comes later
                    ev.record_event(session, user, ev.LANGUAGE_READ, subject=slug, lang=lang, source="browser",
                                    dedupe=f"browser:{slug}:{lang}")
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
