"""The gradebook's edges: work stored at the due minute itself, late lessons under each policy, which
level counts as late, the first pass, a lesson read twice, a reset progress, and CSV cells that a
spreadsheet would run as formulas. SQLite and PostgreSQL (the classes conftest)."""
from __future__ import annotations

import datetime as dt

import pytest

from app.classes import assignments, gradebook, roster

TIERS = {"gemm": ["beat_naive", "beat_tiled"]}
DUE = dt.datetime(2026, 12, 4, 14, 59)  # 23:59 in Seoul


@pytest.fixture
def course(db, make_user):
    return roster.create_class(db, make_user("kim", "instructor"), "GPU 101", tz="Asia/Seoul")


@pytest.fixture
def lee(db, course, make_user):
    user = make_user("lee")
    roster.join(db, course.invite_code, user)
    return user


def _assign(db, course, **kw):
    values = dict(title="Week 1", opens_at=dt.datetime(2026, 11, 30), due_at=DUE, lessons=[], exercises=["gemm"],
                  known_lessons={"01-memory", "04-gemm"}, known_exercises=TIERS)
    values.update(kw)
    return assignments.create_assignment(db, course, **values)


def _cell(db, course, username="lee"):
    views = assignments.for_class(db, course.id)
    rows = gradebook.build(db, roster.roster(db, course.id, "learner"), views, TIERS)
    return {r.username: r.cells for r in rows}[username][0]


def _read(db, user, slug, at, epoch=0):
    from app.progress.models import Event

    db.add(Event(user_id=user.id, epoch=epoch, kind="lesson_completed", subject=slug, source="server",
                 occurred_at=at, recorded_at=at))
    db.flush()


def test_a_pass_stored_at_the_due_minute_is_on_time(db, course, lee, submit):
    _assign(db, course)
    submit(lee, "gemm", "PASSED", DUE)
    cell = _cell(db, course)
    assert (cell.score, cell.late, cell.exercises[0].best_on_time, cell.exercises[0].best_late) == (
        1, False, "passed", None)


def test_a_lesson_finished_at_the_due_minute_is_on_time(db, course, lee):
    _assign(db, course, exercises=[], lessons=["04-gemm"])
    _read(db, lee, "04-gemm", DUE)
    cell = _cell(db, course)
    assert (cell.score, cell.out_of, cell.late, cell.lessons[0].complete) == (1, 1, False, True)


@pytest.mark.parametrize("policy, expected", [("mark", (1, True, True)), ("close", (0, False, False))])
def test_a_lesson_finished_late_counts_only_under_mark(db, course, lee, policy, expected):
    _assign(db, course, exercises=[], lessons=["04-gemm"], late_policy=policy)
    _read(db, lee, "04-gemm", DUE + dt.timedelta(minutes=1))
    cell = _cell(db, course)
    assert (cell.score, cell.late, cell.lessons[0].complete) == expected
    assert cell.lessons[0].read_at == dt.datetime(2026, 12, 4, 15, 0)


def test_late_level_is_shown_only_when_it_beats_the_on_time_one(db, course, lee, submit):
    _assign(db, course)
    submit(lee, "gemm", "PASSED", DUE - dt.timedelta(hours=1), tiers=("beat_naive",))
    submit(lee, "gemm", "PASSED", DUE + dt.timedelta(hours=1))  # late, and lower than the on-time level
    ex = _cell(db, course).exercises[0]
    assert (ex.best_on_time, ex.best_late, ex.attempts) == ("beat_naive", None, 2)
    submit(lee, "gemm", "PASSED", DUE + dt.timedelta(hours=2), tiers=("beat_naive", "beat_tiled"))
    ex = _cell(db, course).exercises[0]
    assert (ex.best_on_time, ex.best_late, ex.attempts) == ("beat_naive", "beat_tiled", 3)


def test_first_pass_is_the_earliest_pass(db, course, lee, submit):
    _assign(db, course)
    submit(lee, "gemm", "WRONG_ANSWER", dt.datetime(2026, 12, 1, 8))
    submit(lee, "gemm", "PASSED", dt.datetime(2026, 12, 1, 9))
    submit(lee, "gemm", "PASSED", dt.datetime(2026, 12, 2, 9))
    ex = _cell(db, course).exercises[0]
    assert (ex.first_pass_at, ex.verdict, ex.attempts) == (dt.datetime(2026, 12, 1, 9), "PASSED", 3)


def test_a_lesson_read_on_time_then_again_late_stays_on_time(db, course, lee):
    _assign(db, course, exercises=[], lessons=["04-gemm"], late_policy="close")
    _read(db, lee, "04-gemm", DUE - dt.timedelta(days=1))
    _read(db, lee, "04-gemm", DUE + dt.timedelta(days=1))
    cell = _cell(db, course)
    assert (cell.score, cell.late, cell.lessons[0].read_at) == (1, False, dt.datetime(2026, 12, 3, 14, 59))


def test_reading_before_a_progress_reset_does_not_count(db, course, lee):
    _assign(db, course, exercises=[], lessons=["04-gemm", "01-memory"])
    _read(db, lee, "04-gemm", DUE - dt.timedelta(days=2), epoch=0)
    lee.progress_epoch = 1  # the learner reset their progress after reading it
    _read(db, lee, "01-memory", DUE - dt.timedelta(days=1), epoch=1)
    cell = _cell(db, course)
    assert (cell.score, cell.out_of, cell.left) == (1, 2, [("lesson", "04-gemm")])


@pytest.mark.parametrize("name", ["-2+3", "+cmd", "@SUM(A1)", "=1+1"])
def test_csv_quotes_every_formula_start(db, course, make_user, name):
    _assign(db, course, title=name)
    row_user = make_user("lee")
    roster.import_csv(db, course, f"username,email\nlee,{name}@example.org\n")
    views = assignments.for_class(db, course.id)
    rows = gradebook.build(db, roster.roster(db, course.id, "learner"), views, TIERS)
    assert row_user.username == "lee"
    assert gradebook.to_csv(rows, views) == (
        f"username,email,'{name} [score],'{name} [out of],'{name} [late]\n"
        f"lee,'{name}@example.org,0,1,no\n")


def test_the_latest_override_is_the_one_that_counts(db, course, lee, submit, override, make_user):
    _assign(db, course)
    han = make_user("han", "grader")
    sub = submit(lee, "gemm", "PASSED", dt.datetime(2026, 12, 1))
    override(sub, "WRONG_ANSWER", han)
    override(sub, "PASSED", han)  # the grader looked again
    cell = _cell(db, course)
    assert (cell.score, cell.exercises[0].verdict, cell.exercises[0].best_on_time) == (1, "PASSED", "passed")
