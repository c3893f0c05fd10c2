"""The XP ledger: one payment per deed even under concurrent requests; totals are sums; entries
are never edited or deleted (adjustments compensate, reset voids); the level curve."""
from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from app.accounts.models import User
from app.core.db import make_engine, make_session_factory
from app.core.migrate import upgrade_to_head
from app.progress import xp
from app.progress.learner import completed_lessons, reset_progress
from app.progress.models import XpEntry
from app.progress.reading import complete_lesson
from app.progress.registry import level_for_xp, xp_to_leave


@pytest.fixture
def db_factory(db_url):  # SQLite and PostgreSQL
    engine = make_engine(db_url)
    upgrade_to_head(engine)
    yield make_session_factory(engine)
    engine.dispose()


def make_user(factory, name="kim") -> int:
    with factory() as db:
        user = User(username=name, username_key=name, password_hash="x", role="learner", tz="UTC", progress_epoch=0)
        db.add(user)
        db.commit()
        return user.id


def test_same_deed_pays_once_under_concurrency(db_factory):
    user_id = make_user(db_factory)
    threads_n = 10  # within the engine pool (5 + 10 overflow): all hold a connection at once
    barrier = threading.Barrier(threads_n, timeout=20)
    paid, errors = [], []

    def worker():
        try:
            with db_factory() as db:
                user = db.get(User, user_id)
                barrier.wait()  # all threads insert at the same moment
                entry = xp.pay(db, user, "lesson", "naive-vs-tiled-gemm", 30)
                db.commit()
                paid.append(entry is not None)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert paid.count(True) == 1 and len(paid) == threads_n
    with db_factory() as db:
        user = db.get(User, user_id)
        assert db.scalar(select(func.count()).select_from(XpEntry)) == 1
        assert xp.total_xp(db, user) == 30


def test_concurrent_lesson_completion_through_the_service(db_factory, settings):
    """Double clicks as two threads calling complete_lesson: one event-based XP payment."""
    from app.lessons.catalog import load_catalog
    from app.templating import STATIC_DIR

    lesson = load_catalog(settings.lessons_dir, STATIC_DIR, settings.kernels_dir).get("naive-vs-tiled-gemm")
    user_id = make_user(db_factory)
    barrier = threading.Barrier(8, timeout=20)

    def worker():
        with db_factory() as db:
            user = db.get(User, user_id)
            barrier.wait()
            complete_lesson(db, user, lesson, "en")
            db.commit()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    with db_factory() as db:
        user = db.get(User, user_id)
        assert xp.total_xp(db, user) == lesson.meta.xp
        assert list(completed_lessons(db, user)) == ["naive-vs-tiled-gemm"]


def test_total_is_the_sum_and_adjustments_compensate(db_factory):
    user_id = make_user(db_factory)
    with db_factory() as db:
        user = db.get(User, user_id)
        xp.pay(db, user, "lesson", "a", 30)
        xp.pay(db, user, "exercise_pass", "gemm", 40)
        assert xp.total_xp(db, user) == 70
        first = xp.adjust(db, user, -10, "tier paid on a flaky timing", "sub:1:fix")
        again = xp.adjust(db, user, -10, "double click", "sub:1:fix")
        assert first is not None and again is None
        assert xp.total_xp(db, user) == 60
        with pytest.raises(ValueError):
            xp.adjust(db, user, -1000, "too much", "sub:1:big")
        amounts = sorted(e.amount for e in xp.history(db, user))
        assert amounts == [-10, 30, 40]  # the original rows are untouched


def test_zero_or_negative_content_xp_is_not_paid(db_factory):
    user_id = make_user(db_factory)
    with db_factory() as db:
        user = db.get(User, user_id)
        assert xp.pay(db, user, "lesson", "free", 0) is None
        with pytest.raises(ValueError):
            xp.pay(db, user, "made-up-source", "x", 5)


def test_reset_voids_keeps_rows_and_lets_deeds_pay_again(db_factory):
    user_id = make_user(db_factory)
    with db_factory() as db:
        user = db.get(User, user_id)
        xp.pay(db, user, "lesson", "a", 30)
        reset_progress(db, user)
        db.commit()
        assert xp.total_xp(db, user) == 0
        rows = xp.history(db, user)
        assert len(rows) == 1 and rows[0].voided and rows[0].amount == 30
        assert xp.pay(db, user, "lesson", "a", 30) is not None  # a new epoch, a new deed
        assert xp.total_xp(db, user) == 30


@pytest.mark.parametrize("xp, level, into, need", [
    (0, 0, 0, 100), (99, 0, 99, 100), (100, 1, 0, 150), (249, 1, 149, 150), (250, 2, 0, 200),
    (450, 3, 0, 250), (700, 4, 0, 300),
])
def test_level_curve(xp, level, into, need):
    state = level_for_xp(xp, "en")
    assert (state.level, state.xp_into_level, state.xp_for_next) == (level, into, need)
    assert state.xp_to_go == need - into


def test_level_curve_steps_grow_by_fifty():
    assert [xp_to_leave(n) for n in range(5)] == [100, 150, 200, 250, 300]
    assert level_for_xp(10**6, "ko").level > 7 and level_for_xp(10**6, "ko").name  # names beyond the list
    with pytest.raises(ValueError):
        level_for_xp(-1, "en")


def test_one_learners_total_history_and_reset_leave_the_others_alone(db_factory):
    kim_id, lee_id = make_user(db_factory, "kim"), make_user(db_factory, "lee")
    with db_factory() as db:
        kim, lee = db.get(User, kim_id), db.get(User, lee_id)
        xp.pay(db, kim, "lesson", "a", 10, note="read lesson a")
        xp.pay(db, kim, "lesson", "b", 1)  # one XP is a payment too
        xp.pay(db, lee, "lesson", "a", 100)
        db.commit()
        assert (xp.total_xp(db, kim), xp.total_xp(db, lee)) == (11, 100)
        assert [(e.source_id, e.amount, e.note) for e in xp.history(db, kim)] == [("b", 1, ""), ("a", 10, "read lesson a")]
        assert [e.source_id for e in xp.history(db, kim, limit=1)] == ["b"]  # newest first, at most limit
        assert xp.void_all(db, kim) == 2
        assert xp.void_all(db, kim) == 0  # only live entries are voided, and counted
        db.commit()
        assert (xp.total_xp(db, kim), xp.total_xp(db, lee)) == (0, 100)


def test_an_adjustment_may_take_the_total_to_exactly_zero(db_factory):
    user_id = make_user(db_factory)
    with db_factory() as db:
        user = db.get(User, user_id)
        xp.pay(db, user, "lesson", "a", 30)
        entry = xp.adjust(db, user, -30, "paid by mistake", "fix:1")
        db.commit()
        assert entry.amount == -30 and entry.note == "paid by mistake" and xp.total_xp(db, user) == 0
        with pytest.raises(ValueError, match="below zero"):
            xp.adjust(db, user, -1, "one more", "fix:2")
