"""A class's API answers stay inside the class, over real HTTP on SQLite and PostgreSQL: its submissions
list, its board's strikes and its strike route reach only its own learners; a learner sees an
assignment once it opens; "my assignments" lists only classes one learns in and says overdue only
while something is left. Also the two deadline predicates at their exact minute."""
from __future__ import annotations

import datetime as dt

import pytest

from app.classes import assignments

T0 = dt.datetime(2026, 1, 5, 9)


@pytest.fixture
def world(client):
    """Class A (kim; learner lee, grader han), class B (choi; learner out), a site grader; tokens."""
    from app.accounts.auth import create_api_token
    from app.accounts.models import User
    from app.classes import boards, roster
    from app.core.services import app_services

    with app_services(client.app).session_factory() as db:
        users = {}
        for name, role in (("kim", "instructor"), ("choi", "instructor"), ("lee", "learner"), ("han", "learner"),
                           ("out", "learner"), ("judge", "grader")):
            users[name] = User(username=name, username_key=name, password_hash="x", role=role, tz="UTC")
            db.add(users[name])
        db.flush()
        a = roster.create_class(db, users["kim"], "Class A", tz="UTC")
        b = roster.create_class(db, users["choi"], "Class B", tz="UTC")
        boards.set_board(a, enabled=True, hide_until_due=False)
        roster.add_member(db, a, users["lee"])
        roster.add_member(db, a, users["han"], role="grader")
        roster.add_member(db, b, users["out"])
        for title, opens, due in (("Past", dt.datetime(2026, 1, 1), dt.datetime(2026, 1, 10)),
                                  ("Later", dt.datetime(2099, 1, 1), dt.datetime(2099, 1, 8))):
            assignments.create_assignment(db, a, title=title, opens_at=opens, due_at=due, exercises=["gemm"],
                                          known_lessons=set(), known_exercises={"gemm": []})
        assignments.create_assignment(db, b, title="B's week", opens_at=dt.datetime(2026, 1, 1),
                                      due_at=dt.datetime(2026, 1, 10), exercises=["gemm"],
                                      known_lessons=set(), known_exercises={"gemm": []})
        tokens = {name: {"Authorization": f"Bearer {create_api_token(db, u, 'test')[0]}"} for name, u in users.items()}
        ids = {"a": a.id, "b": b.id, **{name: u.id for name, u in users.items()}}
        db.commit()
    return client, tokens, ids


def _submit(client, user_id: int, ci_low: float, at: dt.datetime = T0) -> int:
    import json

    from app.core.services import app_services
    from app.submissions.models import Submission

    result = {"verdict": "PASSED", "message": {"code": "PASSED", "params": {}}, "tiers": [], "gpu": {"name": "NVIDIA H100"},
              "speedups": [{"against": "tiled", "size": {"M": 4096}, "value": ci_low, "ci_low": ci_low, "ci_high": ci_low}]}
    with app_services(client.app).session_factory() as db:
        row = Submission(user_id=user_id, exercise_id="gemm", source=f"// by {user_id}", state="done", verdict="PASSED",
                         result=json.dumps(result), created_at=at, updated_at=at, finished_at=at)
        db.add(row)
        db.commit()
        return row.id


def test_the_class_submissions_list_holds_only_its_learners(world):
    client, tokens, ids = world
    _submit(client, ids["lee"], 1.5)
    _submit(client, ids["out"], 2.5, T0 + dt.timedelta(hours=1))  # newer, but another class's learner
    seen = client.get(f"/api/classes/{ids['a']}/submissions", headers=tokens["han"])
    assert seen.status_code == 200
    assert [(w["learner"], w["source"]) for w in seen.json()["submissions"]] == [("lee", f"// by {ids['lee']}")]


def test_a_class_grader_cannot_strike_another_classs_learner(world):
    client, tokens, ids = world
    theirs = _submit(client, ids["out"], 2.5)
    refused = client.post(f"/api/classes/{ids['a']}/strikes", json={"submission_id": theirs, "reason": "copy"},
                          headers=tokens["han"])
    assert (refused.status_code, refused.json()["error"]) == (404, "not_on_board")
    mine = _submit(client, ids["lee"], 1.5)
    struck = client.post(f"/api/classes/{ids['a']}/strikes", json={"submission_id": mine, "reason": "copy"},
                         headers=tokens["han"])
    assert (struck.status_code, struck.json()["submission_id"], struck.json()["class_id"]) == (201, mine, ids["a"])


def test_a_class_board_lists_only_its_own_learners_strikes(world):
    client, tokens, ids = world
    theirs = _submit(client, ids["out"], 2.5)
    _submit(client, ids["lee"], 1.5)
    site = client.post("/api/boards/strikes", json={"submission_id": theirs, "reason": "exploit"},
                       headers=tokens["judge"])
    assert site.status_code == 201
    board = client.get(f"/api/classes/{ids['a']}/boards/gemm", headers=tokens["han"]).json()
    assert ([e["name"] for e in board["entries"]], board["strikes"]) == (["lee"], [])


def test_a_learner_sees_an_assignment_once_it_opens_its_instructor_at_once(world):
    client, tokens, ids = world
    as_learner = client.get(f"/api/classes/{ids['a']}", headers=tokens["lee"]).json()
    as_owner = client.get(f"/api/classes/{ids['a']}", headers=tokens["kim"]).json()
    assert [a["title"] for a in as_learner["assignments"]] == ["Past"]
    assert [a["title"] for a in as_owner["assignments"]] == ["Past", "Later"]


def test_my_assignments_are_those_of_classes_i_learn_in_overdue_only_while_work_is_left(world):
    client, tokens, ids = world
    assert client.get("/api/me/assignments", headers=tokens["han"]).json()["assignments"] == []  # a grader there
    before = client.get("/api/me/assignments", headers=tokens["lee"]).json()["assignments"]
    assert [(m["assignment"]["title"], m["score"], m["overdue"]) for m in before] == [("Past", 0, True)]
    _submit(client, ids["lee"], 1.5, dt.datetime(2026, 1, 9))  # passed before the due time
    after = client.get("/api/me/assignments", headers=tokens["lee"]).json()["assignments"]
    assert [(m["assignment"]["title"], m["score"], m["overdue"], m["left"]) for m in after] == [("Past", 1, False, [])]


def test_due_and_open_at_their_exact_minute():
    view = assignments.AssignmentView(1, 1, "Week 1", dt.datetime(2026, 12, 1, 0, 0), dt.datetime(2026, 12, 4, 14, 59),
                                      "passed", "mark")
    assert view.is_open(dt.datetime(2026, 12, 1, 0, 0)) and not view.is_open(dt.datetime(2026, 11, 30, 23, 59))
    assert not view.is_due(dt.datetime(2026, 12, 4, 14, 59)) and view.is_due(dt.datetime(2026, 12, 4, 15, 0))
