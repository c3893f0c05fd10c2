"""ORM models (SQLAlchemy 2, typed). Alembic migrations in migrations/ must match these.

For now the site only records how often each lesson is read, per language and day; the
accounts work adds users, events and submissions beside it.
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import Date, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class LessonView(Base):
    """Page views of one lesson in one language on one day (a counter, no visitor data)."""

    __tablename__ = "lesson_view"
    __table_args__ = (UniqueConstraint("slug", "lang", "day", name="uq_lesson_view_slug_lang_day"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(100), index=True)
    lang: Mapped[str] = mapped_column(String(5))
    day: Mapped[dt.date] = mapped_column(Date)
    views: Mapped[int] = mapped_column(Integer, default=0)


# Account and progress tables live beside their services; importing them here registers them
# on Base.metadata so Alembic (migrations/env.py) and the models-vs-migrations test see them.
from app.accounts import models as _account_models  # noqa: E402,F401
from app.comments import models as _comment_models  # noqa: E402,F401
from app.graders import models as _grader_models  # noqa: E402,F401
from app.notifications import models as _notification_models  # noqa: E402,F401
from app.progress import models as _progress_models  # noqa: E402,F401
from app.reports import models as _report_models  # noqa: E402,F401
from app.submissions import models as _submission_models  # noqa: E402,F401
