"""Roster edges: a class always keeps an instructor (whichever way the last one would lose the role),
joining by the invite code never changes the role someone already has, a member's roster e-mail is
kept, and a CSV holds at most 2000 rows besides its header. SQLite and PostgreSQL (the classes conftest)."""
from __future__ import annotations

import pytest

from app.classes import roster
from app.classes.messages import ClassesError


@pytest.fixture
def kim(make_user):
    return make_user("kim", "instructor")


@pytest.fixture
def course(db, kim):
    return roster.create_class(db, kim, "GPU 101")


@pytest.mark.parametrize("role", ["learner", "grader"])
def test_the_last_instructor_cannot_be_demoted(db, course, kim, role):
    with pytest.raises(ClassesError) as err:
        roster.add_member(db, course, kim, role=role)
    assert (err.value.code, err.value.status) == ("last_instructor", 409)
    assert roster.member_role(db, course.id, kim.id) == "instructor"


def test_an_instructor_can_step_down_once_another_one_is_there(db, course, kim, make_user):
    han = make_user("han")
    roster.add_member(db, course, han, role="instructor")
    roster.add_member(db, course, kim, role="grader")
    assert (roster.member_role(db, course.id, kim.id), roster.member_role(db, course.id, han.id)) == (
        "grader", "instructor")


@pytest.mark.parametrize("role", ["grader", "instructor"])
def test_joining_by_the_invite_keeps_the_role_one_has(db, course, make_user, role):
    han = make_user("han")
    roster.add_member(db, course, han, role=role)
    assert roster.join(db, course.invite_code, han).id == course.id
    assert roster.member_role(db, course.id, han.id) == role


def test_a_members_roster_email_is_kept(db, course, make_user):
    lee = make_user("lee")
    roster.add_member(db, course, lee, email="lee@school.example")
    member, created = roster.add_member(db, course, lee, email="someone@else.example")
    assert (created, member.email) == (False, "lee@school.example")
    member, _ = roster.add_member(db, course, make_user("park"))
    assert member.email == ""
    member, _ = roster.add_member(db, course, member_user := make_user("choi"), email="")
    roster.add_member(db, course, member_user, email="choi@school.example")  # an empty one is filled in
    assert {m.username: m.email for m in roster.roster(db, course.id, "learner")} == {
        "choi": "choi@school.example", "lee": "lee@school.example", "park": ""}


def _names(count: int) -> str:
    return "".join(f"nobody{i}\n" for i in range(count))


def test_a_csv_of_2000_rows_besides_its_header_is_read(db, course):
    report = roster.import_csv(db, course, "username\n" + _names(2000))
    assert (len(report.unknown), report.added) == (2000, [])
    report = roster.import_csv(db, course, _names(2000))  # no header: 2000 names
    assert len(report.unknown) == 2000


@pytest.mark.parametrize("header", ["username\n", ""], ids=["with_header", "without_header"])
def test_a_csv_of_2001_rows_is_refused(db, course, header):
    with pytest.raises(ClassesError) as err:
        roster.import_csv(db, course, header + _names(2001))
    assert (err.value.code, err.value.status, err.value.params) == ("csv_too_large", 413, {"rows": 2000})
