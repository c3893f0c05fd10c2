"""What a page needs to know about a signed-in reader: who it is, their true progress, and
achievements to announce. Visitors (no cookie, no token) cost nothing here: no database."""
from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import Request

from app.accounts import auth as authn
from app.lessons.catalog import Lesson
from app.progress import service
from app.progress.learner import LearnerState


@dataclass
class ReaderView:
    learner: LearnerState
    context: dict = field(default_factory=dict)  # user, csrf_token, announcements for the templates


def signed_in_view(request: Request, lang: str, lessons: list[Lesson], lesson: Lesson | None = None) -> ReaderView | None:
    """None for a visitor. For a signed-in reader of a lesson page, also records 'lesson opened'.

    Synchronous (database work): call it through run_in_threadpool from async routes.
    """
    if authn.SESSION_COOKIE not in request.cookies:
        return None
    with request.app.state.session_factory() as db:
        try:
            auth = authn.resolve(request, db)
        except authn.BadToken:
            return None
        if auth is None or auth.via != "cookie":
            return None
        user = auth.user
        new = []
        if lesson is not None:
            service.record_lesson_opened(db, user, lesson, lang)
            new = service.award_achievements(db, user, frozenset(l.slug for l in lessons))
        learner = service.learner_state(db, user, lessons, lang)
        announcements = service.take_announcements(db, user)
        db.commit()
        return ReaderView(learner, {"user": user, "csrf_token": auth.csrf_token,
                                    "announcements": announcements or new})
