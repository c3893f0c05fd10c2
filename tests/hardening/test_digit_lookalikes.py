"""Ids typed as text (a form field, a query) are ASCII digits only. Python's str.isdigit also says yes
to "²" and "٣"; int() then refuses the first (a 500 before the fix: the graders' list and its CSV, the
stuck page, a class's remove and delete forms) and reads the second as 3, another id than the one the
page offered. Each now answers as any other id no row has."""
from __future__ import annotations

import pytest

from tests.accounts.conftest import page_csrf, set_role, settings, signup  # noqa: F401  (settings: SQLite and PostgreSQL)

LOOKALIKES = ["²", "٣", "３"]  # superscript two, Arabic-Indic three, full-width three


@pytest.fixture
def staff(new_client, app):
    client = new_client()
    assert signup(client, "teacher").status_code == 303
    set_role(app, "teacher", "admin")  # a grader's pages and a class's forms in one session
    client.headers["X-CSRF-Token"] = page_csrf(client)
    made = client.post("/api/classes", json={"name": "GPU 101", "tz": "Asia/Seoul"})
    assert made.status_code == 201, made.text
    return client, made.json()["id"]


@pytest.mark.parametrize("text", LOOKALIKES)
def test_graders_class_filter_takes_ascii_digits_only(staff, text):
    client, _class_id = staff
    for path in ("/api/graders/submissions", "/api/graders/submissions.csv", "/api/graders/stuck.csv",
                 "/en/graders", "/en/graders/stuck"):
        answer = client.get(path, params={"class": text})
        assert answer.status_code == 200, (path, answer.status_code, answer.text[:300])
    listed = client.get("/api/graders/submissions", params={"class": text}).json()
    assert listed["count"] == 0


@pytest.mark.parametrize("text", LOOKALIKES)
def test_class_forms_refuse_lookalike_ids_and_remove_nobody(new_client, staff, text):
    client, class_id = staff
    assert signup(new_client(), "filler").status_code == 303
    learner = new_client()
    assert signup(learner, "lee").status_code == 303  # user 3: what "٣" and "３" read as
    invite = client.get(f"/api/classes/{class_id}").json()["invite_code"]
    learner.headers["X-CSRF-Token"] = page_csrf(learner)
    assert learner.post("/api/classes/join", json={"code": invite}).status_code == 200
    roster = client.get(f"/api/classes/{class_id}/members").json()["members"]
    assert [m["user_id"] for m in roster if m["username"] == "lee"] == [3]
    csrf = client.headers["X-CSRF-Token"]
    removed = client.post(f"/en/classes/{class_id}/remove", data={"csrf_token": csrf, "user_id": text})
    assert removed.status_code == 404 and "That person is not in this class." in removed.text
    deleted = client.post(f"/ko/classes/{class_id}/delete", data={"csrf_token": csrf, "assignment_id": text})
    assert deleted.status_code == 404 and "찾을 수 없어요" in deleted.text
    assert client.get(f"/api/classes/{class_id}/members").json()["members"] == roster
