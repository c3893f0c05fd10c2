"""Lesson view counter with write-behind: requests bump an in-memory tally (no I/O on the
hot path) and a background task adds the tallies to the lesson_view table every few seconds.
A crash loses at most one interval of counts, which is fine for a popularity counter."""
from __future__ import annotations

import datetime as dt
import threading
from collections import Counter

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from app.core.db import rows_changed
from app.lessons.models import LessonView


class ViewCounter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: Counter[tuple[str, str, dt.date]] = Counter()

    def hit(self, slug: str, lang: str) -> None:
        key = (slug, lang, dt.date.today())
        with self._lock:
            self._pending[key] += 1

    def flush(self, session_factory: sessionmaker[Session]) -> int:
        """Write pending tallies; returns how many rows were touched."""
        with self._lock:
            pending, self._pending = self._pending, Counter()
        if not pending:
            return 0
        try:
            with session_factory.begin() as session:
                for (slug, lang, day), count in pending.items():
                    counted = rows_changed(
                        session,
                        update(LessonView)
                        .where(LessonView.slug == slug, LessonView.lang == lang, LessonView.day == day)
                        .values(views=LessonView.views + count),
                    )
                    if counted == 0:
                        session.add(LessonView(slug=slug, lang=lang, day=day, views=count))
        except Exception:
            # Put the counts back so the next flush retries them.
            with self._lock:
                self._pending.update(pending)
            raise
        return len(pending)
