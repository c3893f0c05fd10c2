"""How often each lesson is read, per language and day (a counter, no visitor data; app/stats.py writes it)."""
from __future__ import annotations

import datetime as dt

from sqlalchemy import Date, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base


class LessonView(Base):
    """Page views of one lesson in one language on one day (a counter, no visitor data)."""

    __tablename__ = "lesson_view"
    __table_args__ = (UniqueConstraint("slug", "lang", "day", name="uq_lesson_view_slug_lang_day"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(100), index=True)
    lang: Mapped[str] = mapped_column(String(5))
    day: Mapped[dt.date] = mapped_column(Date)
    views: Mapped[int] = mapped_column(Integer, default=0)
