"""While a job waits for a GPU: its place in line and an estimate from recent gradings, its author
may cancel it (only while it waits, only their own), and "It compiles" is earned at the compile."""
from __future__ import annotations

import datetime as dt
import time

from sqlalchemy import select, update

from app.accounts.models import User
from app.core.services import app_services
from app.progress.models import UserAchievement
from app.submissions.models import Submission
from tests.panel.support import insert_graded, passed_result

from .conftest import gemm_source


def _achievements(app, username: str) -> set[str]:
    with app_services(app).session_factory() as db:
        uid = db.scalar(select(User.id).where(User.username == username))
        return set(db.scalars(select(UserAchievement.achievement_id).where(UserAchievement.user_id == uid)))


def test_place_in_line_estimate_cancel_and_it_compiles(sub_settings, make_client, api_for):
    client = make_client(sub_settings(dispatcher_enabled=True, dispatcher_gpu="off"))
    kim, lee = api_for(client, "kim"), api_for(client, "lee")
    first = kim.wait(kim.submit(gemm_source("kim")).json()["id"])
    assert first["state"] == "awaiting_gpu"
    # earned at the compile, not at the GPU (recorded just after the state is stored)
    deadline = time.monotonic() + 20
    while "first_compile" not in _achievements(client.app, "kim"):
        assert time.monotonic() < deadline, "It compiles was not awarded"
        time.sleep(0.05)
    second = lee.wait(lee.submit(gemm_source("lee")).json()["id"])
    assert (first["position"], second["position"]) == (1, 2)
    assert second["estimate_s"] is None  # nothing graded yet: no estimate
    for lang, words in (("en", "position 2"), ("ko", "대기 순서 2번")):
        assert words in lee.get(second["id"], params={"lang": lang}).json()["state_text"]

    # one earlier grading that took 40 s from claim to result: 2 places ~ 80 s
    done = insert_graded(client.app, "kim", passed_result())
    start = dt.datetime(2026, 11, 1, 12, 0, 0)
    with app_services(client.app).session_factory() as db:
        db.execute(update(Submission).where(Submission.id == done).values(
            claimed_at=start, finished_at=start + dt.timedelta(seconds=40)))
        db.commit()
    assert lee.get(second["id"]).json()["estimate_s"] == 80
    html = client.get(f"/en/panel/submissions/{second['id']}", headers=lee.headers).text
    assert 'data-queue-place="2"' in html and "about 80 s" in html and "data-cancel-submission" in html
    ko = client.get(f"/ko/panel/submissions/{second['id']}", headers=lee.headers).text
    assert "대기 순서: 2번" in ko and "약 80초" in ko

    # only its author cancels it, once; then it is final with no verdict and leaves the line
    assert client.post(f"/api/submissions/{second['id']}/cancel", headers=kim.headers).status_code == 404
    cancelled = client.post(f"/api/submissions/{second['id']}/cancel?lang=ko", headers=lee.headers)
    assert cancelled.status_code == 200, cancelled.text
    body = cancelled.json()
    assert (body["state"], body["final"], body["verdict"], body["position"]) == ("cancelled", True, None, None)
    assert body["state_text"] == "취소했어요."
    again = client.post(f"/api/submissions/{second['id']}/cancel", headers=lee.headers)
    assert again.status_code == 409 and again.json()["error"] == "not_cancellable"
    assert client.post(f"/api/submissions/{done}/cancel", headers=kim.headers).status_code == 409
    assert "data-cancel-submission" not in client.get(f"/en/panel/submissions/{second['id']}", headers=lee.headers).text
