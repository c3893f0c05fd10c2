"""A migrated database (SQLite and PostgreSQL) and a few accounts, for the classes' service tests."""
from __future__ import annotations

import pytest


@pytest.fixture
def settings(settings, db_url):
    """Every app these tests start runs on SQLite and on a real PostgreSQL (``db_url``)."""
    return settings.model_copy(update={"database_url": db_url})


@pytest.fixture
def db(migrated_db):
    return migrated_db


@pytest.fixture
def make_user(db):
    from app.accounts.models import User

    def make(name: str, role: str = "learner", tz: str = "UTC") -> User:
        user = User(username=name, username_key=name.casefold(), password_hash="x", role=role, tz=tz)
        db.add(user)
        db.flush()
        return user
    return make


@pytest.fixture
def submit(db):
    """Store a finished submission as the grader would leave it (verdict, tiers met, speedup, GPU)."""
    import datetime as dt
    import json

    from app.submissions.models import Submission

    def make(user, exercise: str, verdict: str, at: dt.datetime, *, tiers: tuple[str, ...] = (),
             ci_low: float | None = None, gpu: str = "NVIDIA H100 80GB HBM3", finished: dt.datetime | None = None):
        result = {"verdict": verdict, "message": {"code": verdict if verdict != "PASSED" else "PASSED", "params": {}},
                  "tiers": [{"id": t, "against": "naive", "threshold": 1.05, "met": True, "xp": 10} for t in tiers],
                  "speedups": [] if ci_low is None else [
                      {"against": "tiled", "size": {"M": 4096, "N": 4096, "K": 4096}, "value": ci_low + 0.1,
                       "ci_low": ci_low, "ci_high": ci_low + 0.2, "confidence": 0.95},
                      {"against": "tiled", "size": {"M": 256, "N": 256, "K": 256}, "value": 9.0,
                       "ci_low": 9.0, "ci_high": 9.0, "confidence": 0.95}],
                  "gpu": {"name": gpu}}
        row = Submission(user_id=user.id, exercise_id=exercise, source="// k", state="done", verdict=verdict,
                         result=json.dumps(result), created_at=at, updated_at=finished or at,
                         finished_at=finished or at)
        db.add(row)
        db.flush()
        return row
    return make


@pytest.fixture
def override(db):
    """A grader's override entry (the audit row app.graders.reviews writes)."""
    from app.submissions.models import SubmissionReview

    def make(submission, verdict: str, grader=None):
        entry = SubmissionReview(submission_id=submission.id, grader_id=grader.id if grader else None,
                                 grader_name=grader.username if grader else "", kind="override",
                                 verdict_before=submission.verdict, verdict_after=verdict, reason="checked by hand")
        db.add(entry)
        db.flush()
        return entry
    return make
