"""What a page needs to know about a signed-in reader: who it is, their true progress, and
achievements to announce. Visitors (no cookie, no token) cost nothing here: no database.

A repeat view costs one read-only SELECT (reader_cache.peek_reader: session + user + a
fingerprint of the user's progress rows) and no write:
- the session is looked up every time (never cached), so sign-out and expiry act at once; whether a
  cookie names a live session is judged by accounts.auth.live_session, the rule the API uses too;
- the learner state is reused only while the fingerprint is unchanged, and only if it was
  computed by a view that wrote nothing; any completion, XP, reset, merge or grading result
  changes the fingerprint, so the next view recomputes it in full;
- 'lesson opened' is still stored once per user, epoch, lesson, language and local day (the
  database's dedupe key); an in-process set remembers which are stored, so later views skip it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

from fastapi import Request

from app.accounts import auth as authn
from app.accounts.models import User
from app.core.services import services
from app.lessons.catalog import Lesson
from app.progress.achievements import award_achievements, take_announcements
from app.progress.learner import LearnerState, learner_state
from app.progress.reader_cache import ReaderMemo, ReaderPeek, load_reader, peek_reader
from app.progress.reading import opened_day, record_lesson_opened


@dataclass
class ReaderView:
    learner: LearnerState
    context: dict[str, Any] = field(default_factory=dict)  # user, csrf_token, announcements for the templates


NOT_SIGNED_IN: Final = False  # repeat_view's answer when the cookie names no session


def repeat_view(request: Request, lang: str, lessons: list[Lesson],
                lesson: Lesson | None = None) -> ReaderView | Literal[False] | None:
    """A repeat view answered by one Core SELECT and the memo: the ReaderView, NOT_SIGNED_IN when
    no session matches the cookie, or None when signed_in_view must do the full work (first view,
    progress changed, 'lesson opened' not known to be stored, expired session, Bearer header).
    Reads only: on SQLite the caller may run it on the event loop (an in-process read costs less
    than the thread hand-off it saves)."""
    cookie = request.cookies.get(authn.SESSION_COOKIE)
    if not cookie or request.headers.get("authorization", ""):
        return None
    engine = services(request).engine
    expired: list[ReaderPeek] = []  # this view only reads: an expired row is left for signed_in_view to delete
    peek = authn.live_session(cookie, lambda token_hash: peek_reader(engine, token_hash), expired.append)
    if peek is None:
        return None if expired else NOT_SIGNED_IN
    key, opened = _view_keys(peek.user, peek.fingerprint, lang, tuple(item.slug for item in lessons), lesson)
    memo = services(request).get(ReaderMemo)
    cached = memo.state(peek.user.id, key)
    if cached is None or (opened is not None and not memo.opened(opened)):
        return None
    return ReaderView(cached, {"user": peek.user, "csrf_token": peek.csrf_token, "announcements": []})


def signed_in_view(request: Request, lang: str, lessons: list[Lesson], lesson: Lesson | None = None) -> ReaderView | None:
    """None for a visitor. For a signed-in reader of a lesson page, also records 'lesson opened'.

    Synchronous (database work): call it through run_in_threadpool from async routes.
    """
    cookie = request.cookies.get(authn.SESSION_COOKIE)
    if cookie is None:
        return None
    if request.headers.get("authorization", ""):
        # a Bearer token wins over the cookie (as in authn.resolve), and token callers get no reader view
        with services(request).session_factory() as db:
            try:
                authn.resolve(request, db)
            except authn.BadToken:
                pass
        return None
    if not cookie:
        return None
    repeat = repeat_view(request, lang, lessons, lesson)
    if repeat is not None:
        return repeat or None
    memo = services(request).get(ReaderMemo)
    slugs = tuple(item.slug for item in lessons)
    with services(request).session_factory() as db:
        reader = authn.live_session(cookie, lambda token_hash: load_reader(db, token_hash),
                                    lambda expired: authn.delete_expired(db, expired.session))
        if reader is None:
            return None
        user = reader.user
        context = {"user": user, "csrf_token": reader.session.csrf_token}
        key, opened = _view_keys(user, reader.fingerprint, lang, slugs, lesson)

        cached = memo.state(user.id, key)
        if cached is not None and (opened is None or memo.opened(opened)):
            return ReaderView(cached, {**context, "announcements": []})

        wrote = False
        new = []
        if lesson is not None:
            assert opened is not None  # a lesson view has its 'lesson opened' key
            wrote = record_lesson_opened(db, user, lesson, lang, day=opened[4]) is not None
            new = award_achievements(db, user, frozenset(slugs))
        learner = learner_state(db, user, lessons, lang)
        announcements = take_announcements(db, user)
        db.commit()
        if opened is not None:
            memo.remember_opened(opened)
        # Remember only what a write-free view computed from the state the fingerprint names:
        # then serving it again for the same fingerprint is exactly what recomputing would give.
        if not (wrote or new or announcements or reader.unannounced):
            memo.remember_state(user.id, key, learner)
        return ReaderView(learner, {**context, "announcements": announcements or new})


def _view_keys(user: User, fingerprint: tuple[object, ...], lang: str, slugs: tuple[str, ...],
               lesson: Lesson | None) -> tuple[tuple[object, ...], tuple[int, int, str, str, str] | None]:
    """The memo key of a view, and its 'lesson opened' key (user, epoch, lesson, language, local day)."""
    opened = None
    if lesson is not None:
        opened = (user.id, user.progress_epoch, lesson.slug, lang, opened_day(user))
    # lesson views also award achievements; a state from an index view (no award) is not reused for them
    return (fingerprint, lang, slugs, lesson is not None), opened
