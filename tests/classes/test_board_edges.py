"""Leaderboard edges: ties (the earlier submission wins, within one learner and between learners), who
counts as a class's learner, when an alias is shown, and hiding until the due time (the latest due time
of this class's assignments, shown again at the due minute). SQLite and PostgreSQL (the classes conftest)."""
from __future__ import annotations

import datetime as dt

import pytest

from app.classes import assignments, boards, roster

T0 = dt.datetime(2026, 12, 1, 9)


@pytest.fixture
def course(db, make_user):
    row = roster.create_class(db, make_user("kim", "instructor"), "GPU 101")
    boards.set_board(row, enabled=True, hide_until_due=False)
    return row


@pytest.fixture
def lee_park(db, course, make_user):
    people = [make_user("lee"), make_user("park")]
    for u in people:
        roster.join(db, course.invite_code, u)
    return people


def _entries(db, course):
    return boards.entries(db, "gemm", boards.class_learners(db, course.id))


def test_a_learners_tie_keeps_their_earlier_submission(db, course, lee_park, submit):
    lee, _park = lee_park
    first = submit(lee, "gemm", "PASSED", T0, ci_low=2.0)
    submit(lee, "gemm", "PASSED", T0 + dt.timedelta(hours=1), ci_low=2.0)
    [entry] = _entries(db, course)
    assert (entry.rank, entry.name, entry.submission_id, entry.created_at) == (1, "lee", first.id, T0)


def test_a_tie_between_learners_goes_to_the_earlier_submission_not_the_lower_id(db, course, lee_park, submit):
    lee, park = lee_park
    submit(park, "gemm", "PASSED", T0 + dt.timedelta(hours=2), ci_low=2.0)  # stored first, so a lower id
    submit(lee, "gemm", "PASSED", T0, ci_low=2.0)  # but submitted earlier
    assert [(e.rank, e.name) for e in _entries(db, course)] == [(1, "lee"), (2, "park")]


def test_only_the_classs_learners_are_on_its_board(db, course, lee_park, submit, make_user):
    lee, _park = lee_park
    han = make_user("han")
    roster.add_member(db, course, han, role="grader")
    kim_id = course.created_by
    assert sorted(boards.class_learners(db, course.id)) == sorted(u.id for u in lee_park)
    assert kim_id not in boards.class_learners(db, course.id)
    submit(han, "gemm", "PASSED", T0, ci_low=9.0)  # the grader's own try is not a learner's entry
    submit(lee, "gemm", "PASSED", T0, ci_low=1.0)
    assert [e.name for e in _entries(db, course)] == ["lee"]


def test_an_alias_is_shown_only_while_the_learner_chooses_it(db, course, lee_park, submit):
    lee, _park = lee_park
    submit(lee, "gemm", "PASSED", T0, ci_low=1.0)
    boards.set_profile(db, lee, use_alias=False, alias="Warp Speed", site_board=False)
    [entry] = _entries(db, course)
    assert (entry.name, entry.is_alias) == ("lee", False)


def _assignment(db, row, due, exercise="gemm"):
    assignments.create_assignment(db, row, title=f"Due {due:%m-%d}", opens_at=T0, due_at=due, exercises=[exercise],
                                  known_lessons=set(), known_exercises={exercise: []})


def test_hidden_until_the_latest_due_time_and_shown_at_that_minute(db, course):
    boards.set_board(course, enabled=True, hide_until_due=True)
    _assignment(db, course, dt.datetime(2026, 12, 4, 14, 59))
    _assignment(db, course, dt.datetime(2026, 12, 11, 14, 59))  # the same exercise again, a week later
    assert boards.hidden_until(db, course, "gemm", now=dt.datetime(2026, 12, 5)) == dt.datetime(2026, 12, 11, 14, 59)
    assert boards.hidden_until(db, course, "gemm", now=dt.datetime(2026, 12, 11, 14, 59)) is None


def test_another_classs_assignment_does_not_hide_this_board(db, course, make_user):
    boards.set_board(course, enabled=True, hide_until_due=True)
    other = roster.create_class(db, make_user("choi", "instructor"), "GPU 102")
    _assignment(db, other, dt.datetime(2026, 12, 11, 14, 59))
    assert boards.hidden_until(db, course, "gemm", now=T0) is None
