"""Two parts of launch handling checked on their own: what the claims say (an institution role makes
nobody an instructor of the course; a link names one of three kinds of resource) and the launch
storage (an expired nonce or state is gone: it neither verifies nor is taken; a nonce works once).
The storage on SQLite and PostgreSQL."""
from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from app.lti import claims

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
INSTITUTION = "http://purl.imsglobal.org/vocab/lis/v2/institution/person"


@pytest.mark.parametrize("roles, expected", [
    ([f"{INSTITUTION}#Instructor"], "learner"),  # staff of the school, a learner in this course
    ([f"{INSTITUTION}#Instructor", f"{MEMBERSHIP}#Learner"], "learner"),
    ([f"{MEMBERSHIP}#Instructor"], "instructor"),
    (["Instructor"], "instructor"),
    ([f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}/Instructor#TeachingAssistant"], "grader"),
    ("Instructor", "learner"),  # not a list: nothing is read from it
    ([7, None], "learner"),
])
def test_only_a_course_role_makes_an_instructor_or_grader(roles, expected):
    assert claims.course_role(roles) == expected


@pytest.mark.parametrize("value, expected", [
    ("lesson:04-gemm", ("lesson", "04-gemm")),
    ("exercise:gemm", ("exercise", "gemm")),
    ("assignment:12", ("assignment", "12")),
    ("admin:users", None),
    ("file:/etc/passwd", None),
    ("lesson:", None),
    ("gemm", None),
    ("lesson:" + "x" * 194, None),  # 201 characters
    (None, None),
])
def test_a_link_names_a_lesson_an_exercise_or_an_assignment(value, expected):
    assert claims.parse_resource(value) == expected


@pytest.fixture
def db(migrated_db):
    return migrated_db


def _age(db, seconds: float) -> None:
    """Every stored value's expiry moves ``seconds`` into the past (as if that much time passed)."""
    from app.lti.models import LtiLaunchValue

    for row in db.scalars(select(LtiLaunchValue)):  # in Python: SQLite has no datetime arithmetic
        row.expires_at -= dt.timedelta(seconds=seconds)
    db.flush()


def test_a_nonce_is_taken_once(db):
    from app.lti.storage import DatabaseLaunchStorage

    store = DatabaseLaunchStorage(db)
    store.set_value("nonce-abc", True, exp=600)
    assert store.check_value("nonce-abc") is True
    assert store.take("nonce-abc") is True
    assert store.take("nonce-abc") is False
    assert store.check_value("nonce-abc") is False


def test_an_expired_nonce_is_not_taken(db):
    from app.lti.storage import DatabaseLaunchStorage

    store = DatabaseLaunchStorage(db)
    store.set_value("nonce-old", True, exp=600)
    _age(db, 601)
    assert store.take("nonce-old") is False


def test_an_expired_value_is_not_read(db):
    from app.lti.storage import DatabaseLaunchStorage, purge_expired

    store = DatabaseLaunchStorage(db)
    store.set_value("state-old", {"v": 1}, exp=300)
    store.set_value("state-new", {"v": 2}, exp=900)
    _age(db, 301)
    assert (store.get_value("state-old"), store.check_value("state-old")) == (None, False)
    assert (store.get_value("state-new"), store.check_value("state-new")) == ({"v": 2}, True)
    assert purge_expired(db) == 1
    assert store.get_value("state-new") == {"v": 2}
