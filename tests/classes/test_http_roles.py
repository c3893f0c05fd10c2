"""Roles × routes over real HTTP, generated from the permission table below (the documented one:
README "Teaching a class"): learner, grader assigned to the class and not, instructor of the class and
of another, administrator, visitor. Then the API's answers themselves: a term from the first request."""
from __future__ import annotations

import datetime as dt
import json

import pytest
from fastapi.testclient import TestClient

from app.core.services import app_services
from app.factory import create_app

# What each role inside a class may do (app/classes/permissions.py must say the same).
TABLE = {
    "learner": {"class.view", "class.board"},
    "grader": {"class.view", "class.board", "roster.view", "gradebook.view", "insight.view", "board.strike",
               "submissions.view"},
    "instructor": {"class.view", "class.board", "roster.view", "gradebook.view", "insight.view", "board.strike",
                   "submissions.view", "class.manage", "roster.manage", "assignments.manage"},
}
# caller -> (site role, role in the class or None)
CALLERS = {
    "learner": ("learner", "learner"),
    "grader_assigned": ("learner", "grader"),
    "grader_unassigned": ("grader", None),
    "instructor_own": ("instructor", "instructor"),
    "instructor_other": ("instructor", None),
    "admin": ("admin", None),
    "visitor": (None, None),
}
ROUTES = [  # method, path ({c}: the class, {a}: its assignment), JSON body, permission
    ("GET", "/api/classes/{c}", None, "class.view"),
    ("GET", "/api/classes/{c}/boards/gemm", None, "class.board"),
    ("GET", "/api/classes/{c}/members", None, "roster.view"),
    ("GET", "/api/classes/{c}/gradebook", None, "gradebook.view"),
    ("GET", "/api/classes/{c}/gradebook.csv", None, "gradebook.view"),
    ("GET", "/api/classes/{c}/assignments/{a}/insight", None, "insight.view"),
    ("GET", "/api/classes/{c}/submissions", None, "submissions.view"),
    ("GET", "/en/classes/{c}/submissions", None, "submissions.view"),
    ("GET", "/en/classes/{c}/gradebook", None, "gradebook.view"),
    ("POST", "/api/classes/{c}/strikes", {"submission_id": 999999, "reason": "copy"}, "board.strike"),
    ("POST", "/api/classes/{c}/members", {"username": "newbie", "role": "learner"}, "roster.manage"),
    ("POST", "/api/classes/{c}/assignments", {"title": "Week 2", "opens_at": "2026-12-01T09:00",
                                              "due_at": "2026-12-11T23:59", "exercises": ["gemm"]}, "assignments.manage"),
]


def test_the_table_is_the_codes():
    from app.classes.permissions import CLASS_PERMISSIONS

    assert {k: set(v) for k, v in CLASS_PERMISSIONS.items()} == TABLE


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """One app, one class (and another instructor's class), a token per caller."""
    from app.accounts.auth import create_api_token
    from app.accounts.models import User
    from app.classes import assignments, boards, roster
    from tests.conftest import make_settings

    app = create_app(make_settings(tmp_path_factory.mktemp("classes-http")))
    with TestClient(app, raise_server_exceptions=False) as client:
        tokens = {}
        with app_services(app).session_factory() as db:
            users = {}
            for name, (site_role, _class_role) in CALLERS.items():
                if site_role:
                    users[name] = User(username=name.replace("_", "-"), username_key=name.replace("_", "-"),
                                       password_hash="x", role=site_role, tz="America/Los_Angeles")
                    db.add(users[name])
            db.add(User(username="newbie", username_key="newbie", password_hash="x", role="learner"))
            db.flush()
            own = roster.create_class(db, users["instructor_own"], "GPU 101", tz="Asia/Seoul")
            roster.create_class(db, users["instructor_other"], "Another class")
            boards.set_board(own, enabled=True, hide_until_due=False)
            for name, (_site, class_role) in CALLERS.items():
                if class_role and name != "instructor_own":
                    roster.add_member(db, own, users[name], role=class_role)
            a = assignments.create_assignment(
                db, own, title="Week 1", opens_at=dt.datetime(2026, 11, 1),
                due_at=assignments.parse_local("2026-12-04T23:59", "Asia/Seoul"), exercises=["gemm"],
                known_lessons=set(), known_exercises={"gemm": []})
            for name, user in users.items():
                tokens[name] = create_api_token(db, user, "test")[0]
            db.commit()
            ids = {"c": own.id, "a": a.id}
        yield client, tokens, ids


def _call(client, tokens, ids, caller, method, path, body):
    headers = {"Authorization": f"Bearer {tokens[caller]}"} if caller in tokens else {}
    return client.request(method, path.format(**ids), json=body, headers=headers, follow_redirects=False)


@pytest.mark.parametrize("caller", list(CALLERS))
@pytest.mark.parametrize("method, path, body, permission", ROUTES)
def test_roles_by_routes(term, caller, method, path, body, permission):
    client, tokens, ids = term
    site_role, class_role = CALLERS[caller]
    response = _call(client, tokens, ids, caller, method, path, body)
    if path.startswith("/en/") and response.status_code < 400:
        assert response.status_code == 303 or "<h1>" in response.text
    if site_role is None:
        expected = {303} if path.startswith("/en/") else {401}  # a page sends a visitor to sign in
    elif site_role == "admin" or (class_role and permission in TABLE[class_role]):
        expected = {200, 201} if permission != "board.strike" else {404}  # allowed; no such submission
    else:
        expected = {403}
    assert response.status_code in expected, (caller, path, response.status_code, response.text)
    if response.status_code >= 400 and path.startswith("/api/"):
        assert set(response.json()) == {"error", "message", "params"}


def test_learner_sees_deadline_in_both_zones_and_what_is_left(term):
    client, tokens, ids = term
    mine = client.get("/api/me/assignments?lang=en", headers={"Authorization": f"Bearer {tokens['learner']}"}).json()
    [item] = [m for m in mine["assignments"] if m["assignment"]["title"] == "Week 1"]
    assert item["assignment"]["due"] == {"utc": "2026-12-04T14:59:00Z", "yours": "2026-12-04 06:59 PST",
                                         "class_zone": "2026-12-04 23:59 KST"}
    assert (item["score"], item["out_of"]) == (0, 1)
    assert [(x["kind"], x["ref"], x["url"]) for x in item["left"]] == [
        ("exercise", "gemm", "/en/lessons/naive-vs-tiled-gemm#exercise-title")]


def test_invite_code_only_for_roster_managers(term):
    client, tokens, ids = term
    as_learner = _call(client, tokens, ids, "learner", "GET", "/api/classes/{c}", None).json()
    as_owner = _call(client, tokens, ids, "instructor_own", "GET", "/api/classes/{c}", None).json()
    assert as_learner["invite_code"] is None and len(as_owner["invite_code"]) == 8
    assert as_owner["invite_url"].endswith(f"/ko/join/{as_owner['invite_code']}")


def test_bad_input_is_a_clear_refusal_never_a_500(term):
    client, tokens, ids = term
    bad = [("POST", "/api/classes/{c}/assignments", {"title": "X", "opens_at": "soon", "due_at": "later",
                                                     "exercises": ["gemm"]}, "bad_time"),
           ("POST", "/api/classes/{c}/assignments", {"title": "X", "opens_at": "2026-12-01T00:00",
                                                     "due_at": "2026-12-02T00:00", "exercises": ["nope"]},
            "unknown_exercise"),
           ("POST", "/api/classes/{c}/members", {"username": "ghost"}, "user_unknown"),
           # the schema says a name needs a non-space character: refused before the service, naming the field
           ("POST", "/api/classes", {"name": " ", "tz": "Asia/Seoul"}, "invalid_request"),
           ("POST", "/api/classes", {"name": "X", "tz": "Nowhere/Else"}, "bad_timezone")]
    for method, path, body, code in bad:
        response = _call(client, tokens, ids, "instructor_own", method, path, body)
        assert 400 <= response.status_code < 500 and response.json()["error"] == code, response.text
    ko = client.post("/api/classes?lang=ko", json={"name": "X", "tz": "Nowhere/Else"},
                     headers={"Authorization": f"Bearer {tokens['instructor_own']}"})
    assert ko.json()["message"] == "목록에 있는 시간대를 골라 주세요(예: Asia/Seoul)."
    learner = _call(client, tokens, ids, "learner", "POST", "/api/classes", {"name": "Mine"})
    assert learner.status_code == 403


def test_join_csv_gradebook_and_board_through_the_api(term):
    client, tokens, ids = term
    owner = {"Authorization": f"Bearer {tokens['instructor_own']}"}
    created = client.post("/api/classes", json={"name": "Section B", "term": "2026 Fall", "notice_lang": "en",
                                                "tz": "America/Los_Angeles"}, headers=owner)
    assert created.status_code == 201, created.text
    cid, code = created.json()["id"], created.json()["invite_code"]
    learner = {"Authorization": f"Bearer {tokens['learner']}"}
    assert client.post("/api/classes/join", json={"code": code}, headers=learner).json()["role"] == "learner"
    imported = client.post(f"/api/classes/{cid}/members.csv", content="username,email\nnewbie,n@example.org\nghost,\n",
                           headers={**owner, "Content-Type": "text/csv"}).json()
    assert imported == {"added": ["newbie"], "already": [], "unknown": ["ghost"]}
    csv = client.get(f"/api/classes/{cid}/gradebook.csv", headers=owner).text
    assert csv.splitlines() == ["username,email", "learner,", "newbie,n@example.org"]
    closed = client.get(f"/api/classes/{cid}/boards/gemm", headers=owner)
    assert closed.status_code == 404 and closed.json()["error"] == "board_off"
    assert json.loads(client.get("/openapi.json").text)["paths"]["/api/classes/{class_id}/gradebook"]["get"][
        "responses"]["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Gradebook"}


def test_a_grader_assigned_to_the_class_reads_its_submissions(term):
    from app.submissions.models import Submission

    client, tokens, ids = term
    with app_services(client.app).session_factory() as db:
        from app.accounts.users import find_user

        db.add(Submission(user_id=find_user(db, "learner").id, exercise_id="gemm", source="// mine", state="done",
                          verdict="WRONG_ANSWER", result="{}"))
        db.commit()
    seen = _call(client, tokens, ids, "grader_assigned", "GET", "/api/classes/{c}/submissions", None).json()
    assert [(w["learner"], w["verdict"], w["source"]) for w in seen["submissions"]] == [
        ("learner", "WRONG_ANSWER", "// mine")]


def test_hidden_board_until_due_for_learners_not_for_staff(term):
    from app.accounts.users import find_user
    from app.classes.models import CourseClass
    from app.submissions.models import Submission

    client, tokens, ids = term
    with app_services(client.app).session_factory() as db:
        result = {"verdict": "PASSED", "message": {"code": "PASSED"}, "tiers": [], "gpu": {"name": "NVIDIA H100"},
                  "speedups": [{"against": "tiled", "size": {"M": 2048}, "value": 1.6, "ci_low": 1.5, "ci_high": 1.7}]}
        db.add(Submission(user_id=find_user(db, "learner").id, exercise_id="gemm", source="//", state="done",
                          verdict="PASSED", result=json.dumps(result)))
        db.get(CourseClass, ids["c"]).board_hide_until_due = True
        db.commit()
    made = _call(client, tokens, ids, "instructor_own", "POST", "/api/classes/{c}/assignments",
                 {"title": "Project", "opens_at": "2026-11-01T00:00", "due_at": "2099-12-31T23:59", "exercises": ["gemm"]})
    assert made.status_code == 201
    try:
        # the board waits for the latest due time of the assignments naming the exercise: 23:59 Seoul
        learner = _call(client, tokens, ids, "learner", "GET", "/api/classes/{c}/boards/gemm", None).json()
        staff = _call(client, tokens, ids, "grader_assigned", "GET", "/api/classes/{c}/boards/gemm", None).json()
        assert learner["hidden_until"] == staff["hidden_until"] == "2099-12-31T14:59:00Z"
        assert learner["entries"] == []
        assert [(e["name"], e["speedup_ci_low"], e["gpu"]) for e in staff["entries"]] == [("learner", 1.5, "NVIDIA H100")]
        assert staff["entries"][0]["submission_id"] is not None
    finally:
        with app_services(client.app).session_factory() as db:
            db.get(CourseClass, ids["c"]).board_hide_until_due = False
            db.commit()
        gone = _call(client, tokens, ids, "instructor_own", "DELETE", "/api/classes/{c}/assignments/" + str(made.json()["id"]),
                     None)
        assert gone.status_code == 204
