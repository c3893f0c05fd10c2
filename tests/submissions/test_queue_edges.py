"""Queue edges: a learner who used exactly their GPU budget waits (and is told until when), the time
estimate is the median grading time, a cancel names its owner in the statement itself, and a body
whose declared size is over the cap is refused before a byte of it is read. SQLite and PostgreSQL."""
from __future__ import annotations

import asyncio
import datetime as dt
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select

from app.core.clock import utcnow
from app.core.services import app_services
from app.submissions import queue, states
from app.submissions.messages import SubmissionError
from app.submissions.models import Submission

from .conftest import gemm_source
from .test_gpu_budget import gpu_dispatcher, in_lang, used_gpu


def test_exactly_the_budget_used_means_waiting(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=10, gpu_budget_seconds=10))
    factory = app_services(client.app).session_factory
    ann = api_for(client, "ann")
    finished = used_gpu(factory, "ann", 10_000, minutes_ago=10)  # 10 s of a 10 s budget
    job = ann.submit(gemm_source("a")).json()["id"]
    view = in_lang(ann, job, "en").json()
    assert view["gpu_wait_until"] == (finished + dt.timedelta(hours=1)).isoformat() + "Z"
    assert view["state_text"].startswith("Waiting: you used 10 of your 10 seconds of GPU time this hour.")
    assert not gpu_dispatcher(factory, budget=10).step()


def _graded(factory, user_id: int, seconds: float) -> None:
    finished = utcnow() - dt.timedelta(minutes=5)
    with factory() as db:
        db.add(Submission(user_id=user_id, exercise_id="gemm", source="// earlier", state=states.DONE,
                          verdict="PASSED", result="{}", created_at=finished, recorded=True,
                          claimed_at=finished - dt.timedelta(seconds=seconds), finished_at=finished))
        db.commit()


def test_the_estimate_is_the_median_grading_time(sub_settings, make_client, api_for):
    from app.accounts.models import User

    client = make_client(sub_settings())
    factory = app_services(client.app).session_factory
    ann = api_for(client, "ann")
    with factory() as db:
        ann_id = db.scalar(select(User.id).where(User.username == "ann"))
    for seconds in (10, 90, 20):
        _graded(factory, ann_id, seconds)
    view = ann.get(ann.submit(gemm_source("a")).json()["id"]).json()
    assert (view["state"], view["position"], view["estimate_s"]) == ("queued", 1, 20)


def test_a_cancel_for_someone_else_changes_nothing(sub_settings, make_client, api_for):
    from app.accounts.models import User

    client = make_client(sub_settings())
    factory = app_services(client.app).session_factory
    ann, bob = api_for(client, "ann"), api_for(client, "bob")
    job = ann.submit(gemm_source("a")).json()["id"]
    with factory() as db:
        bob_id = db.scalar(select(User.id).where(User.username == bob.username))
        assert queue.cancel(db, job, bob_id) is False
        db.commit()
        assert db.get(Submission, job).state == states.QUEUED
    assert bob.client.post(f"/api/submissions/{job}/cancel", headers=bob.headers).status_code == 404
    assert ann.client.post(f"/api/submissions/{job}/cancel", headers=ann.headers).json()["state"] == "cancelled"


class _Request:
    """A request whose headers declare a size and whose body is a few bytes."""

    def __init__(self, declared: str):
        self.headers = {"content-length": declared}

    async def stream(self):
        yield b'{"source": "x"}'


def _run(coroutine):
    """The coroutine to its end on a thread of its own: in the whole suite, browser tests that ran
    earlier leave an event loop running on the main thread, where asyncio.run refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.mark.parametrize("declared, params", [
    ("397313", {"bytes": 397313, "limit": 397312}),  # one byte over 6 x 64 KiB + 4 KiB
    ("99999999999", {"bytes": 99999999999, "limit": 397312}),
])
def test_a_declared_size_over_the_cap_is_refused_before_reading(declared, params):
    from app.submissions.intake import read_body

    with pytest.raises(SubmissionError) as err:
        _run(read_body(_Request(declared)))  # type: ignore[arg-type]
    assert (err.value.code, err.value.status, err.value.params) == ("body_too_large", 413, params)


def test_a_declared_size_at_the_cap_is_read():
    from app.submissions.intake import read_body

    assert _run(read_body(_Request("397312"))) == b'{"source": "x"}'  # type: ignore[arg-type]
