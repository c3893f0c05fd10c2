"""XP cannot pass the course's maximum, by construction.

Before the fix, 10 rounds of "reset progress" racing 15 parallel lesson completions gave 190 XP on a
course worth 160: a completion that had read the old epoch wrote its payment after the reset, so the
same lesson was live in two epochs. A partial unique index now allows one live row per deed."""
from __future__ import annotations

import threading

import pytest

from app.accounts.models import User
from app.core.db import make_engine, make_session_factory
from app.core.migrate import upgrade_to_head
from app.progress import xp
from app.progress.learner import reset_progress
from app.progress.reading import complete_lesson


@pytest.fixture
def db_factory(db_url):  # SQLite file and a real PostgreSQL
    engine = make_engine(db_url)
    upgrade_to_head(engine)
    yield make_session_factory(engine)
    engine.dispose()


def _user(factory) -> int:
    with factory() as db:
        user = User(username="race", username_key="race", password_hash="x", role="learner", tz="UTC",
                    progress_epoch=0)
        db.add(user)
        db.commit()
        return user.id


def test_a_stale_epoch_payment_cannot_make_a_deed_live_twice(db_factory):
    user_id = _user(db_factory)
    with db_factory() as db:
        stale = db.get(User, user_id)
        stale_epoch = stale.progress_epoch
        with db_factory() as other:  # the reset commits in between
            reset_progress(other, other.get(User, user_id))
            other.commit()
        # the completion that read epoch 0 pays now, after the reset ...
        stale.progress_epoch = stale_epoch
        assert xp.pay(db, stale, "lesson", "naive-vs-tiled-gemm", 30) is not None
        db.commit()
    with db_factory() as db:
        fresh = db.get(User, user_id)
        db.refresh(fresh)
        # ... and the next completion in the new epoch finds the deed live already.
        assert xp.pay(db, fresh, "lesson", "naive-vs-tiled-gemm", 30) is None
        db.commit()
        assert xp.total_xp(db, fresh) == 30


def test_resets_racing_completions_never_pay_past_the_maximum(db_factory, settings):
    from app.lessons.catalog import load_catalog
    from app.templating import STATIC_DIR

    catalog = load_catalog(settings.lessons_dir, STATIC_DIR, settings.kernels_dir)
    lessons = [lesson for lesson in catalog.lessons if lesson.meta.xp > 0][:3]
    maximum = sum(lesson.meta.xp for lesson in lessons)
    user_id = _user(db_factory)
    errors: list[BaseException] = []
    for _round in range(6):
        barrier = threading.Barrier(9, timeout=30)

        def complete(lesson, barrier=barrier):
            try:
                with db_factory() as db:
                    user = db.get(User, user_id)
                    barrier.wait()
                    complete_lesson(db, user, lesson, "en")
                    db.commit()
            except Exception as exc:  # noqa: BLE001 - a lost race may fail to commit; never a double pay
                if "database is locked" not in str(exc) and "could not serialize" not in str(exc):
                    errors.append(exc)

        def reset(barrier=barrier):
            with db_factory() as db:
                user = db.get(User, user_id)
                barrier.wait()
                reset_progress(db, user)
                db.commit()

        threads = [threading.Thread(target=complete, args=(lessons[i % len(lessons)],)) for i in range(8)]
        threads.append(threading.Thread(target=reset))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with db_factory() as db:
            assert xp.total_xp(db, db.get(User, user_id)) <= maximum
    assert errors == []
