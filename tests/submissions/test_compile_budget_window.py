"""The hourly compile budget's window: a learner held back waits until their oldest compile of the hour
leaves it (the page gives that time), and a long compile's first slice counts even when its full compile
never ran (it was cancelled). SQLite and PostgreSQL; the one-box pipeline stepped by hand."""
from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import update

from app.core.clock import utcnow
from app.core.services import app_services
from app.submissions.models import Submission

from .conftest import gemm_source
from .test_pipeline import stepped_box


@pytest.mark.parametrize("spent", [
    {"compile_ms": 120_000},  # one compile of 120 s
    {"compile_ms": None, "long_compile_ms": 120_000, "state": "cancelled", "verdict": None},  # a slice, then cancelled
], ids=["compiled", "slice_only"])
def test_a_learner_past_the_compile_budget_waits_until_the_oldest_compile_leaves_the_hour(
        sub_settings, make_client, api_for, spent):
    client = make_client(sub_settings(submission_max_in_flight=3))
    kim = api_for(client, "kim")
    earlier = kim.submit(gemm_source("earlier")).json()["id"]
    job = kim.submit(gemm_source("now")).json()["id"]
    claimed = utcnow().replace(microsecond=0) - dt.timedelta(minutes=20)
    factory = app_services(client.app).session_factory
    with factory() as db:
        db.execute(update(Submission).where(Submission.id == earlier).values(
            **{"state": "done", "verdict": "PASSED", **spent}, claimed_at=claimed,
            finished_at=claimed + dt.timedelta(minutes=2), recorded=True))
        db.commit()
    pipeline = stepped_box(factory, slots=1, budget=120)
    try:
        assert pipeline.compile_step()  # held back, not compiled
        view = kim.client.get(f"/api/submissions/{job}?lang=en", headers=kim.headers).json()
        assert (view["state"], view["waiting_reason"]) == ("queued", "compile_budget")
        assert view["waiting_until"] == (claimed + dt.timedelta(hours=1)).isoformat() + "Z"
        with factory() as db:
            assert db.get(Submission, job).compile_ms is None
    finally:
        pipeline.stop()
