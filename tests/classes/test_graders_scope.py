"""The graders' dashboard, its exports and the stuck report scoped to one class (?class=ID)."""
from __future__ import annotations

import datetime as dt
import json

import pytest
from fastapi.testclient import TestClient

from app.core.services import app_services
from app.factory import create_app


@pytest.fixture
def scoped(settings):
    from app.accounts.auth import create_api_token
    from app.accounts.models import User
    from app.classes import roster
    from app.submissions.models import Submission

    app = create_app(settings)
    with TestClient(app, raise_server_exceptions=False) as client:
        with app_services(app).session_factory() as db:
            people = {n: User(username=n, username_key=n, password_hash="x", role=r)
                      for n, r in (("gina", "grader"), ("kim", "instructor"), ("lee", "learner"), ("park", "learner"))}
            db.add_all(people.values())
            db.flush()
            a = roster.create_class(db, people["kim"], "Section A")
            b = roster.create_class(db, people["kim"], "Section B")
            roster.add_member(db, a, people["lee"])
            roster.add_member(db, b, people["park"])
            at = dt.datetime(2026, 12, 1)
            for name in ("lee", "park"):
                for i in range(3):
                    db.add(Submission(user_id=people[name].id, exercise_id="gemm", source="//", state="done",
                                      verdict="WRONG_ANSWER", created_at=at + dt.timedelta(minutes=i),
                                      result=json.dumps({"verdict": "WRONG_ANSWER", "message": {"code": "WRONG_ANSWER"}})))
            token = create_api_token(db, people["gina"], "t")[0]
            db.commit()
            yield client, {"Authorization": f"Bearer {token}"}, a.id, b.id


def test_dashboard_export_and_stuck_follow_the_class(scoped):
    client, auth, a, b = scoped
    every = client.get("/api/graders/submissions", headers=auth).json()
    assert every["count"] == 6
    only_a = client.get(f"/api/graders/submissions?class={a}", headers=auth).json()
    assert {s["learner"] for s in only_a["submissions"]} == {"lee"} and only_a["count"] == 3
    stuck = client.get(f"/api/graders/stuck.csv?class={b}&min=3", headers=auth).text.splitlines()
    assert [line.split(",")[2] for line in stuck[1:]] == ["park"]
    page = client.get(f"/en/graders?class={a}", headers=auth).text
    assert f'<option value="{a}" selected>Section A</option>' in page
    assert client.get("/api/graders/submissions?class=abc", headers=auth).json()["count"] == 6  # not a class: no filter
