"""record_grading_result: the submission flow's one call. XP from the spec, paid once per deed;
events and achievements from the engine's real Result objects."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from app.accounts.models import User
from app.core.db import make_engine, make_session_factory
from app.core.migrate import upgrade_to_head
from app.progress import events as ev
from app.progress import xp
from app.progress.grading import record_grading_result, replay_history
from app.progress.models import Event
from app.progress.social import record_comment_posted, record_reply_marked_helpful
from kernels.engine import load_exercise
from kernels.engine.result import Message, Resources, Result, Speedup, TierOutcome, Verdict


@pytest.fixture
def db(db_url):  # SQLite and PostgreSQL
    engine = make_engine(db_url)
    upgrade_to_head(engine)
    with make_session_factory(engine)() as session:
        user = User(username="kim", username_key="kim", password_hash="x", role="learner", tz="UTC", progress_epoch=0)
        session.add(user)
        session.commit()
        yield session
    engine.dispose()


def user_of(db) -> User:
    return db.scalar(select(User))


def passed(tiers=(), speedups=()):
    return Result(verdict=Verdict.PASSED, message=Message("PASSED"), exercise="gemm", resources=Resources(registers=32),
                  tiers=list(tiers), speedups=list(speedups))


def size():
    return {"M": 2048, "N": 2048, "K": 2048}


def test_pass_and_tiers_pay_spec_amounts_once(db):
    spec = load_exercise("gemm")
    tiers = {t.id: t for t in spec.tiers}
    result = passed(
        tiers=[TierOutcome("beat_naive", "naive", 1.05, True, 999), TierOutcome("beat_tiled", "tiled", 1.05, False, 999)],
        speedups=[Speedup("naive", size(), 3.0, 2.8, 3.1), Speedup("tiled", size(), 1.2, 1.1, 1.3)],
    )
    summary = record_grading_result(db, user_of(db).id, "gemm", 1, result)
    db.commit()
    # the Result's own xp numbers (999) are ignored: amounts come from the spec
    assert summary["xp_paid"] == spec.pass_xp + tiers["beat_naive"].xp
    ids = {a.id for a in summary["achievements"]}
    assert {"first_compile", "first_correct", "beat_naive", "beat_tiled"} <= ids and "double_tiled" not in ids

    # the same submission again, and a second passing submission: nothing pays twice
    assert record_grading_result(db, user_of(db).id, "gemm", 1, result)["xp_paid"] == 0
    assert record_grading_result(db, user_of(db).id, "gemm", 2, result)["xp_paid"] == 0
    db.commit()
    assert xp.total_xp(db, user_of(db)) == spec.pass_xp + tiers["beat_naive"].xp
    # a later, faster submission pays only the newly met tier
    faster = passed(tiers=[TierOutcome("beat_tiled", "tiled", 1.05, True, 0)],
                    speedups=[Speedup("tiled", size(), 2.4, 2.1, 2.6)])
    summary = record_grading_result(db, user_of(db).id, "gemm", 3, faster)
    assert summary["xp_paid"] == tiers["beat_tiled"].xp
    assert [a.id for a in summary["achievements"]] == ["double_tiled"]


def test_submission_events_are_recorded_once(db):
    result = passed()
    record_grading_result(db, user_of(db).id, "gemm", 7, result)
    record_grading_result(db, user_of(db).id, "gemm", 7, result)
    kinds = [e.kind for e in db.scalars(select(Event))]
    assert kinds.count(ev.EXERCISE_ATTEMPTED) == 1 and kinds.count(ev.EXERCISE_PASSED) == 1


@pytest.mark.parametrize("verdict, compiled", [
    (Verdict.COMPILE_ERROR, False), (Verdict.WRONG_ANSWER, True), (Verdict.RUNTIME_ERROR, True),
])
def test_failed_submissions_pay_nothing_but_count_compiles(db, verdict, compiled):
    result = Result(verdict=verdict, message=Message(verdict.value), exercise="gemm")
    summary = record_grading_result(db, user_of(db).id, "gemm", 5, result)
    assert summary["xp_paid"] == 0
    assert ({a.id for a in summary["achievements"]} == {"first_compile"}) is compiled
    assert xp.total_xp(db, user_of(db)) == 0


def test_unavailable_gpu_counts_a_compile_only_when_it_compiled(db):
    no_gpu = Result(verdict=Verdict.UNAVAILABLE, message=Message("NO_GPU"), exercise="gemm")
    assert record_grading_result(db, user_of(db).id, "gemm", 1, no_gpu)["achievements"] == []
    no_gpu.resources = Resources(registers=40)
    assert [a.id for a in record_grading_result(db, user_of(db).id, "gemm", 2, no_gpu)["achievements"]] == ["first_compile"]


def test_unknown_user_is_an_error(db):
    with pytest.raises(LookupError):
        record_grading_result(db, 999, "gemm", 1, passed())


def test_comment_hooks_award_on_synthetic_events(db):
    user = user_of(db)
    assert [a.id for a in record_comment_posted(db, user, 11)] == ["first_comment"]
    assert record_reply_marked_helpful(db, user, 12, marked_by=user.id) == []  # own mark: no
    assert [a.id for a in record_reply_marked_helpful(db, user, 13, marked_by=user.id + 1)] == ["helpful_reply"]


def test_xp_rule_over_synthetic_events():
    import datetime as dt

    from app.progress.events import EventView
    from app.progress.xp import Deed, deeds

    t = dt.datetime(2026, 11, 1)
    events = [EventView(ev.LESSON_COMPLETED, t, "a"), EventView(ev.LESSON_COMPLETED, t, "a"),
              EventView(ev.LESSON_COMPLETED, t, "unknown"), EventView(ev.LESSON_COMPLETED, t, "free"),
              EventView(ev.EXERCISE_PASSED, t, "gemm", data={"tiers_met": ["fast", "made_up"]}),
              EventView(ev.EXERCISE_PASSED, t, "gone", data={"tiers_met": []})]
    specs = {"gemm": (40, {"fast": 10, "faster": 20})}
    got = deeds(events, {"a": 30, "free": 0}, specs.get)
    assert sorted(got, key=lambda d: d.source_id) == [Deed("lesson", "a", 30), Deed("exercise_pass", "gemm", 40),
                                                      Deed("exercise_tier", "gemm:fast", 10)]


def test_replay_history_pays_what_events_are_worth_once(db, settings):
    """Events recorded without payment (e.g. before a rule existed) are paid by a replay, once."""
    from app.lessons.catalog import load_catalog
    from app.templating import STATIC_DIR

    lessons = load_catalog(settings.lessons_dir, STATIC_DIR, settings.kernels_dir).visible()
    user = user_of(db)
    ev.record_event(db, user, ev.LESSON_COMPLETED, subject=lessons[0].slug)
    ev.record_event(db, user, ev.EXERCISE_PASSED, subject="gemm", data={"tiers_met": ["beat_naive"]})
    spec = load_exercise("gemm")
    expected = lessons[0].meta.xp + spec.pass_xp + {t.id: t.xp for t in spec.tiers}["beat_naive"]
    first = replay_history(db, user, lessons)
    assert first["xp_paid"] == expected == xp.total_xp(db, user)
    assert {a.id for a in first["achievements"]} == {"first_lesson", "first_correct"}
    again = replay_history(db, user, lessons)
    assert again == {"xp_paid": 0, "achievements": []} and xp.total_xp(db, user) == expected
