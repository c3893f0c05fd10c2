"""Assignments and the gradebook: deadlines across time zones, tiers, late policies, overrides."""
from __future__ import annotations

import datetime as dt

import pytest

from app.classes import assignments, gradebook, roster
from app.classes.messages import ClassesError

TIERS = {"gemm": ["beat_naive", "beat_tiled", "cublas_50"], "transpose": ["beat_naive"]}
LESSONS = {"01-memory", "04-gemm"}


@pytest.fixture
def course(db, make_user):
    kim = make_user("kim", "instructor")
    row = roster.create_class(db, kim, "GPU 101", tz="Asia/Seoul")
    return row


def _assign(db, row, **kw):
    values = dict(title="Week 1", opens_at=dt.datetime(2026, 11, 30), lessons=["04-gemm"], exercises=["gemm"],
                  due_at=assignments.parse_local("2026-12-04T23:59", "Asia/Seoul"),
                  known_lessons=LESSONS, known_exercises=TIERS)
    values.update(kw)
    return assignments.create_assignment(db, row, **values)


def test_due_2359_seoul_is_stored_in_utc_and_read_in_each_zone():
    due = assignments.parse_local("2026-12-04T23:59", "Asia/Seoul")
    assert due == dt.datetime(2026, 12, 4, 14, 59)
    assert assignments.in_zone(due, "UTC").strftime("%Y-%m-%d %H:%M") == "2026-12-04 14:59"
    assert assignments.in_zone(due, "America/Los_Angeles").strftime("%Y-%m-%d %H:%M %Z") == "2026-12-04 06:59 PST"
    assert assignments.in_zone(due, "Asia/Seoul").strftime("%Y-%m-%d %H:%M %Z") == "2026-12-04 23:59 KST"
    # an explicit offset wins over the class's zone
    assert assignments.parse_local("2026-12-04T23:59-08:00", "Asia/Seoul") == dt.datetime(2026, 12, 5, 7, 59)


@pytest.mark.parametrize("text", ["", "Friday", "2026-13-40T10:00", "x" * 50])
def test_bad_times_are_refused(text):
    with pytest.raises(ClassesError) as err:
        assignments.parse_local(text, "UTC")
    assert err.value.code == "bad_time"


@pytest.mark.parametrize("kw, code", [
    ({"title": ""}, "title_required"),
    ({"lessons": [], "exercises": []}, "items_required"),
    ({"lessons": ["99-nope"]}, "unknown_lesson"),
    ({"exercises": ["nope"]}, "unknown_exercise"),
    ({"complete_tier": "beat_tiled", "exercises": ["gemm", "transpose"]}, "bad_tier"),
    ({"late_policy": "maybe"}, "bad_late_policy"),
    ({"opens_at": dt.datetime(2026, 12, 31)}, "due_before_open"),
])
def test_bad_assignments_are_refused(db, course, kw, code):
    with pytest.raises(ClassesError) as err:
        _assign(db, course, **kw)
    assert err.value.code == code


def test_assignment_lists_its_items_in_order(db, course, make_user):
    a = _assign(db, course, exercises=["transpose", "gemm"], complete_tier="beat_naive")
    view = assignments.get(db, course.id, a.id)
    assert (view.lessons, view.exercises, view.complete_tier) == (["04-gemm"], ["transpose", "gemm"], "beat_naive")
    lee = make_user("lee")
    roster.join(db, course.invite_code, lee)
    assert [v.title for _c, v in assignments.for_learner(db, lee.id, now=dt.datetime(2026, 12, 1))] == ["Week 1"]
    assert assignments.for_learner(db, lee.id, now=dt.datetime(2026, 11, 29)) == []  # not open yet


def _book(db, course):
    learners = roster.roster(db, course.id, "learner")
    views = assignments.for_class(db, course.id)
    return {r.username: r.cells for r in gradebook.build(db, learners, views, TIERS)}


def test_stored_before_due_graded_after_counts_on_time(db, course, make_user, submit):
    _assign(db, course, lessons=[])
    lee, park = make_user("lee"), make_user("park")
    for u in (lee, park):
        roster.join(db, course.invite_code, u)
    # stored 23:58 Seoul, graded 00:30 the next day
    submit(lee, "gemm", "PASSED", dt.datetime(2026, 12, 4, 14, 58), finished=dt.datetime(2026, 12, 4, 15, 30))
    # stored 00:01 Seoul: a minute late
    submit(park, "gemm", "PASSED", dt.datetime(2026, 12, 4, 15, 1))
    book = _book(db, course)
    lee_cell, park_cell = book["lee"][0], book["park"][0]
    assert (lee_cell.score, lee_cell.out_of, lee_cell.late) == (1, 1, False)
    assert lee_cell.exercises[0].best_on_time == "passed"
    assert (park_cell.score, park_cell.late) == (1, True)
    assert (park_cell.exercises[0].best_on_time, park_cell.exercises[0].best_late) == (None, "passed")


def test_close_policy_does_not_count_late_work(db, course, make_user, submit):
    _assign(db, course, lessons=[], late_policy="close")
    park = make_user("park")
    roster.join(db, course.invite_code, park)
    submit(park, "gemm", "PASSED", dt.datetime(2026, 12, 5))
    cell = _book(db, course)["park"][0]
    assert (cell.score, cell.out_of, cell.late) == (0, 1, False)
    assert cell.exercises[0].best_late == "passed"


def test_tier_that_counts_attempts_and_first_pass(db, course, make_user, submit):
    _assign(db, course, lessons=[], complete_tier="beat_tiled")
    lee = make_user("lee")
    roster.join(db, course.invite_code, lee)
    submit(lee, "gemm", "WRONG_ANSWER", dt.datetime(2026, 12, 1, 1))
    submit(lee, "gemm", "PASSED", dt.datetime(2026, 12, 1, 2), tiers=("beat_naive",))
    cell = _book(db, course)["lee"][0].exercises[0]
    assert (cell.attempts, cell.best_on_time, cell.complete, cell.first_pass_at) == (
        2, "beat_naive", False, dt.datetime(2026, 12, 1, 2))
    submit(lee, "gemm", "PASSED", dt.datetime(2026, 12, 2), tiers=("beat_naive", "beat_tiled"))
    cell = _book(db, course)["lee"][0].exercises[0]
    assert (cell.attempts, cell.best_on_time, cell.complete) == (3, "beat_tiled", True)


def test_gradebook_follows_a_graders_override(db, course, make_user, submit, override):
    _assign(db, course, lessons=[])
    lee, grader = make_user("lee"), make_user("han", "grader")
    roster.join(db, course.invite_code, lee)
    sub = submit(lee, "gemm", "PASSED", dt.datetime(2026, 12, 1), tiers=("beat_naive",))
    assert _book(db, course)["lee"][0].score == 1
    override(sub, "WRONG_ANSWER", grader)
    cell = _book(db, course)["lee"][0]
    assert (cell.score, cell.exercises[0].verdict, cell.exercises[0].best_on_time) == (0, "WRONG_ANSWER", None)
    wrong = submit(lee, "gemm", "WRONG_ANSWER", dt.datetime(2026, 12, 2))
    override(wrong, "PASSED", grader)
    cell = _book(db, course)["lee"][0]
    assert (cell.score, cell.exercises[0].verdict, cell.exercises[0].best_on_time) == (1, "PASSED", "passed")


def test_lessons_read_count_and_what_is_left(db, course, make_user):
    from app.progress.models import Event

    _assign(db, course, exercises=[], lessons=["01-memory", "04-gemm"])
    lee = make_user("lee")
    roster.join(db, course.invite_code, lee)
    db.add(Event(user_id=lee.id, epoch=0, kind="lesson_completed", subject="04-gemm", source="server",
                 occurred_at=dt.datetime(2026, 12, 1), recorded_at=dt.datetime(2026, 12, 1)))
    db.flush()
    cell = _book(db, course)["lee"][0]
    assert (cell.score, cell.out_of, cell.left) == (1, 2, [("lesson", "01-memory")])


def test_csv_has_the_documented_columns(db, course, make_user, submit):
    _assign(db, course, lessons=[], title="=Week 1")
    lee = make_user("lee")
    roster.import_csv(db, course, "username,email\nlee,lee@example.org\n")
    submit(lee, "gemm", "PASSED", dt.datetime(2026, 12, 1))
    views = assignments.for_class(db, course.id)
    rows = gradebook.build(db, roster.roster(db, course.id, "learner"), views, TIERS)
    assert gradebook.to_csv(rows, views) == (
        "username,email,'=Week 1 [score],'=Week 1 [out of],'=Week 1 [late]\n"
        "lee,lee@example.org,1,1,no\n")
