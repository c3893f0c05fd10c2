"""The compile stage's limits at their boundaries (app/submissions/compiling.py): a learner who used
exactly the hour's compile budget waits like one over it, one a millisecond under it compiles; a first
slice as long as a whole compile's CPU limit slices nothing. On SQLite and PostgreSQL."""
from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import update

from app.core.clock import utcnow
from app.core.services import app_services
from app.submissions.models import Submission
from tests.submissions.test_pipeline import stepped_box

from .conftest import gemm_source


@pytest.mark.parametrize("used_ms,held_back", [(120_000, True), (119_999, False)], ids=["at", "under"])
def test_the_compile_budget_holds_back_from_exactly_its_limit(sub_settings, make_client, api_for, used_ms, held_back):
    client = make_client(sub_settings(submission_max_in_flight=3))
    kim = api_for(client, "kim")
    spent = kim.submit(gemm_source("spent")).json()["id"]
    job = kim.submit(gemm_source("next")).json()["id"]
    factory = app_services(client.app).session_factory
    ten_minutes_ago = utcnow() - dt.timedelta(minutes=10)
    finished = {"state": "done", "verdict": "PASSED", "recorded": True, "finished_at": ten_minutes_ago}
    with factory() as db:  # the hour's compile time so far: one compile of used_ms, ten minutes ago
        db.execute(update(Submission).where(Submission.id == spent)
                   .values(compile_ms=used_ms, claimed_at=ten_minutes_ago, **finished))
        db.commit()
    pipeline = stepped_box(factory, slots=1, budget=120)
    try:
        assert pipeline.compile_step()
        with factory() as db:
            row = db.get(Submission, job)
            assert (row.waiting_reason == "compile_budget") is held_back
            assert (row.compile_ms is None) is held_back
    finally:
        pipeline.stop()


@pytest.mark.parametrize("slice_seconds,usable", [(6.0, 0.0), (7.0, 0.0), (5.5, 5.5), (0.0, 0.0)])
def test_a_first_slice_must_be_shorter_than_a_whole_compiles_cpu_limit(monkeypatch, slice_seconds, usable):
    from app.submissions.compiling import CompileStage

    monkeypatch.setenv("MKC_COMPILE_CPU_S", "6")
    stage = CompileStage(None, [object()], None, 120.0, None, slice_seconds)
    assert stage.slice_seconds == usable
