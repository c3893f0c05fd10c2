"""Classes and rosters through the service: create, invite (rotate, close), join, CSV, roles, remove."""
from __future__ import annotations

import pytest
from sqlalchemy import text

from app.classes import roster
from app.classes.messages import ClassesError


def test_create_class_makes_the_owner_its_instructor_with_an_open_invite(db, make_user):
    kim = make_user("kim", "instructor")
    row = roster.create_class(db, kim, "GPU 101", term="2026 Fall", notice_lang="ko", tz="Asia/Seoul")
    db.commit()
    assert (row.name, row.term, row.notice_lang, row.tz) == ("GPU 101", "2026 Fall", "ko", "Asia/Seoul")
    assert len(row.invite_code) == 8
    assert roster.member_role(db, row.id, kim.id) == "instructor"


@pytest.mark.parametrize("fields, code", [
    ({"name": ""}, "class_name_required"),
    ({"name": "x" * 121}, "class_name_required"),
    ({"term": "t" * 65}, "term_too_long"),
    ({"notice_lang": "fr"}, "bad_language"),
    ({"tz": "Mars/Olympus"}, "bad_timezone"),
])
def test_bad_class_fields_are_refused_with_their_code(db, make_user, fields, code):
    values = {"name": "GPU 101", "term": "", "notice_lang": "en", "tz": "UTC", **fields}
    with pytest.raises(ClassesError) as err:
        roster.create_class(db, make_user("kim", "instructor"), values.pop("name"), **values)
    assert err.value.code == code and err.value.status == 400


def test_external_id_finds_the_class_and_is_unique(db):
    row = roster.create_class(db, None, "LMS course", external_id="https://lms.example|ctx-1")
    db.commit()
    assert roster.find_by_external_id(db, "https://lms.example|ctx-1").id == row.id
    assert roster.find_by_external_id(db, "other") is None
    with pytest.raises(ClassesError) as err:
        roster.create_class(db, None, "Again", external_id="https://lms.example|ctx-1")
    assert err.value.code == "external_id_taken" and err.value.status == 409


def test_join_by_code_then_rotate_and_close(db, make_user):
    row = roster.create_class(db, make_user("kim", "instructor"), "GPU 101")
    lee = make_user("lee")
    old = row.invite_code
    assert roster.join(db, old.lower(), lee).id == row.id  # typed in lower case still works
    assert roster.member_role(db, row.id, lee.id) == "learner"
    roster.join(db, old, lee)  # twice: still one row
    assert db.execute(text("SELECT count(*) FROM class_member WHERE user_id = :u"), {"u": lee.id}).scalar() == 1
    new = roster.rotate_invite(db, row)
    assert new != old
    with pytest.raises(ClassesError) as err:
        roster.join(db, old, make_user("park"))
    assert err.value.code == "invite_closed" and err.value.status == 404
    roster.close_invite(db, row)
    with pytest.raises(ClassesError):
        roster.join(db, new, make_user("choi"))


def test_a_learner_in_two_classes(db, make_user):
    kim, lee = make_user("kim", "instructor"), make_user("lee")
    a = roster.create_class(db, kim, "A")
    b = roster.create_class(db, kim, "B")
    roster.join(db, a.invite_code, lee)
    roster.join(db, b.invite_code, lee)
    db.commit()
    assert sorted(c.name for c, role in roster.classes_of(db, lee.id)) == ["A", "B"]


def test_csv_adds_known_usernames_keeps_emails_and_reports_unknown(db, make_user):
    row = roster.create_class(db, make_user("kim", "instructor"), "GPU 101")
    make_user("lee"), make_user("park")
    report = roster.import_csv(db, row, "\ufeffUsername,Email\nlee,lee@example.org\nPark,\nghost,g@example.org\n\n")
    assert report.added == ["lee", "park"] and report.unknown == ["ghost"] and report.already == []
    again = roster.import_csv(db, row, b"lee\npark\n")
    assert again.already == ["lee", "park"] and again.added == []
    emails = {m.username: m.email for m in roster.roster(db, row.id, "learner")}
    assert emails == {"lee": "lee@example.org", "park": ""}


@pytest.mark.parametrize("body", [b"\xff\xfe\x00bad", "email\nlee@example.org\n", "a,b\n1,2\n"])
def test_unreadable_csv_is_refused(db, make_user, body):
    row = roster.create_class(db, make_user("kim", "instructor"), "GPU 101")
    with pytest.raises(ClassesError) as err:
        roster.import_csv(db, row, body)
    assert err.value.code == "csv_unreadable"


def test_co_instructor_grader_and_the_last_instructor_stays(db, make_user):
    kim, lee, han = make_user("kim", "instructor"), make_user("lee"), make_user("han")
    row = roster.create_class(db, kim, "GPU 101")
    roster.add_member(db, row, lee, role="grader")
    roster.add_member(db, row, han, role="instructor")
    assert roster.member_role(db, row.id, lee.id) == "grader"
    roster.remove_member(db, row, kim.id)  # han is still an instructor
    with pytest.raises(ClassesError) as err:
        roster.remove_member(db, row, han.id)
    assert err.value.code == "last_instructor" and err.value.status == 409
    with pytest.raises(ClassesError) as err:
        roster.add_member(db, row, lee, role="owner")
    assert err.value.code == "bad_role"


def test_remove_a_learner(db, make_user):
    row = roster.create_class(db, make_user("kim", "instructor"), "GPU 101")
    lee = make_user("lee")
    roster.join(db, row.invite_code, lee)
    roster.remove_member(db, row, lee.id)
    assert roster.member_role(db, row.id, lee.id) is None
    with pytest.raises(ClassesError) as err:
        roster.remove_member(db, row, lee.id)
    assert err.value.code == "not_member"
