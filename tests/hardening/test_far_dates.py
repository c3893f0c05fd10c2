"""Times at the ends of the calendar (year 1, year 9999, with offsets of up to 14 hours) are refused or
clamped with the usual message, and nothing is stored that a page cannot show.

Before the fix an instructor's assignment opening "0001-01-01T00:00Z" and due "9999-12-31T23:59Z" was
stored and answered 500, and from then on every page and API answer of that class answered 500 too
(its deadlines cannot be shown in the class's zone, Asia/Seoul). A browser's progress with a completion
"0001-01-01T00:00:00+14:00" answered 500 as well."""
from __future__ import annotations

import pytest

from tests.accounts.conftest import page_csrf, set_role, settings, signup  # noqa: F401  (settings: SQLite and PostgreSQL)

FAR = [("0001-01-01T00:00Z", "9999-12-31T23:59Z"), ("0001-01-01T00:00", "2026-12-01T00:00"),
       ("2026-12-01T00:00", "9999-12-31T23:59"), ("9999-12-31T23:59:59+14:00", "9999-12-31T23:59:59+14:00"),
       ("1969-12-31T23:59", "2026-12-01T00:00"), ("3000-01-01T00:00", "3000-01-01T00:00")]


@pytest.fixture
def instructor(new_client, app):
    client = new_client()
    assert signup(client, "teacher").status_code == 303
    set_role(app, "teacher", "instructor")
    client.headers["X-CSRF-Token"] = page_csrf(client)
    made = client.post("/api/classes", json={"name": "GPU 101", "tz": "Asia/Seoul"})
    assert made.status_code == 201, made.text
    return client, made.json()["id"]


@pytest.mark.parametrize("opens, due", FAR)
def test_an_assignment_beyond_the_calendar_is_refused_and_the_class_stays_whole(instructor, opens, due):
    client, class_id = instructor
    body = {"title": "Far", "opens_at": opens, "due_at": due, "exercises": ["gemm"]}
    answer = client.post(f"/api/classes/{class_id}/assignments?lang=ko", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "bad_time"
    assert answer.json()["message"] == "공개 시각과 마감 시각을 날짜와 시각으로 적어 주세요(예: 2026-12-04 23:59)."
    detail = client.get(f"/api/classes/{class_id}")
    assert detail.status_code == 200 and detail.json()["assignments"] == []
    assert client.get(f"/en/classes/{class_id}").status_code == 200


def test_the_class_page_form_refuses_them_in_english(instructor):
    client, class_id = instructor
    csrf = client.headers["X-CSRF-Token"]
    answer = client.post(f"/en/classes/{class_id}/assignment",
                         data={"csrf_token": csrf, "title": "Far", "opens_at": "0001-01-01T00:00Z",
                               "due_at": "9999-12-31T23:59Z", "exercises": "gemm"})
    assert answer.status_code == 400
    assert "Enter the opening and due times as dates and times (for example 2026-12-04 23:59)." in answer.text
    assert client.get(f"/api/classes/{class_id}").json()["assignments"] == []


def test_the_calendars_first_and_last_typed_years_still_work(instructor):
    client, class_id = instructor
    body = {"title": "Edges", "opens_at": "1970-01-01T00:00", "due_at": "2999-12-31T23:59+14:00",
            "exercises": ["gemm"]}
    answer = client.post(f"/api/classes/{class_id}/assignments", json=body)
    assert answer.status_code == 201, answer.text
    assert answer.json()["opens"]["utc"] == "1969-12-31T15:00:00Z"
    assert answer.json()["due"]["class_zone"] == "2999-12-31 18:59 KST"
    assert client.get(f"/en/classes/{class_id}").status_code == 200


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00",
                                   "0001-01-01T00:00:00+23:59"])
def test_browser_progress_at_the_calendars_ends_is_clamped_not_a_500(user_client, stamp):
    csrf = page_csrf(user_client)
    answer = user_client.post("/api/progress/merge", json={"completed": {"naive-vs-tiled-gemm": stamp}},
                              headers={"X-CSRF-Token": csrf})
    assert answer.status_code == 200, answer.text
    assert answer.json()["merged"] == ["naive-vs-tiled-gemm"]  # nothing lost: the completion counts
    me = user_client.get("/api/me").json()
    assert me["strip"]["xp"] > 0
