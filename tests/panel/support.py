"""Shared by tests/panel and tests/graders: an app on a real SQLite file, users (API token and
cookie sessions), and graded rows built from real engine Result objects."""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.core.services import app_services
from tests.scrape import first_group
from tests.submissions.conftest import PASSWORD, add_user  # noqa: F401  (re-exported)


def passed_result(exercise: str = "gemm", *, fast: bool = False, tiers_met: bool = True):
    """A complete PASSED Result like the GPU runner writes (sizes, timings, speedups, tiers)."""
    from kernels.engine import load_exercise
    from kernels.engine.result import CorrectnessCase, GpuInfo, Message, Resources, Result, Speedup, TierOutcome, Timing, Verdict, XpAward

    spec = load_exercise(exercise)
    big = {"M": 2048, "N": 2048, "K": 2048}
    small = {"M": 1024, "N": 1024, "K": 1024}
    timings, speedups = [], []
    for size, scale in ((small, 1.0), (big, 8.0)):
        for kernel, ms, rate in (("learner", 1.1, 15.6), ("naive", 4.0, 4.3), ("tiled", 2.2, 7.8), ("baseline", 0.5, 34.0)):
            timings.append(Timing(kernel, size, ms * scale, 0.02 * scale, rate, "TFLOP/s", 20))
        for against, value in (("naive", 3.6), ("tiled", 2.0), ("baseline", 0.45)):
            speedups.append(Speedup(against, size, value, value * 0.93, value * 1.06))
    flags = [Message("IMPLAUSIBLY_FAST", {"kernel": "learner", "work_rate": 900.0, "unit": "TFLOP/s",
                                          "limit": 67.0, "size": big})] if fast else []
    tiers = [TierOutcome(t.id, t.against, t.speedup, tiers_met and t.against != "baseline", t.xp) for t in spec.tiers]
    tier_xp = sum(t.xp for t in tiers if t.met)
    return Result(verdict=Verdict.PASSED, exercise=exercise, message=Message("PASSED", {"sizes": 3}),
                  resources=Resources(registers=40, shared_bytes=8192, local_bytes=0, spill_store_bytes=0,
                                      spill_load_bytes=0),
                  correctness=[CorrectnessCase({"M": 1, "N": 1, "K": 1}, True),
                               CorrectnessCase({"M": 17, "N": 17, "K": 17}, True),
                               CorrectnessCase({"M": 33, "N": 33, "K": 33}, True)],
                  timings=timings, speedups=speedups, tiers=tiers, flags=flags,
                  xp=XpAward(spec.pass_xp, tier_xp, spec.pass_xp + tier_xp),
                  gpu=GpuInfo(name="NVIDIA H200", compute_capability="9.0"))


def wrong_result(exercise: str = "gemm"):
    from kernels.engine.result import CorrectnessCase, Message, Mismatch, Result, Verdict

    return Result(verdict=Verdict.WRONG_ANSWER, exercise=exercise,
                  message=Message("WRONG_ANSWER", {"size": {"M": 17, "N": 17, "K": 17}, "index": [3, 4],
                                                   "got": 0.0, "expected": 4.25}),
                  correctness=[CorrectnessCase({"M": 1, "N": 1, "K": 1}, True),
                               CorrectnessCase({"M": 17, "N": 17, "K": 17}, False, Mismatch([3, 4], 0.0, 4.25))])


def insert_graded(app, username: str, result, *, source: str = "// kernel\n", created: dt.datetime | None = None,
                  record: bool = True) -> int:
    """Store a finished submission with this Result, and pay XP through the real progress service."""
    from sqlalchemy import select

    from app.accounts.models import User
    from app.progress.grading import record_grading_result
    from app.submissions.models import Submission

    now = created or dt.datetime.utcnow()
    with app_services(app).session_factory() as db:
        user = db.scalars(select(User).where(User.username == username)).one()
        row = Submission(user_id=user.id, exercise_id=result.exercise, source=source, launch="null",
                         source_bytes=len(source), state="done", verdict=result.verdict.value,
                         result=result.to_json(), created_at=now, updated_at=now, finished_at=now, attempts=1,
                         recorded=record)
        db.add(row)
        db.commit()
        if record:
            record_grading_result(db, user.id, result.exercise, row.id, result)
            db.commit()
        return row.id


def total_xp(app, username: str) -> int:
    from sqlalchemy import select

    from app.accounts.models import User
    from app.progress import xp

    with app_services(app).session_factory() as db:
        return xp.total_xp(db, db.scalars(select(User).where(User.username == username)).one())


def cookie_login(app, username: str) -> tuple[TestClient, str]:
    """A second client with a browser session for ``username``; returns it and its CSRF token."""
    client = TestClient(app, raise_server_exceptions=False)
    page = client.get("/en/signin")
    token = first_group(r'name="csrf_token" value="([^"]+)"', page.text)
    r = client.post("/en/signin", data={"csrf_token": token, "username": username, "password": PASSWORD,
                                        "next": "/en/"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    csrf = first_group(r'name="csrf-token" content="([^"]+)"', client.get("/en/").text)
    return client, csrf


class LiveServer:
    """A real uvicorn (app.main:app) on a free port with its own SQLite file, which tests can also
    open directly to add users and graded rows. The dispatcher runs (no GPU: compile only)."""

    def __init__(self, data_dir, **settings: str):
        """``settings``: more MKC_ settings for the server (e.g. ``lessons_dir``)."""
        from app.bench.submissions_server import Server

        # Any: these are all MKC_ strings, but a dict[str, str] would be checked against port= and workers=
        server_settings: dict[str, Any] = {"dispatcher_gpu": "off", "signin_user_limit": "1000/60",
                                           "signin_ip_limit": "1000/60", **settings}
        self.server = Server(data_dir, **server_settings).start()
        self.url, self.db_url = self.server.url, self.server.db_url
        # an app over the server's database, never served: add_user / insert_graded reach the rows through
        # its services, as they do for an app under test
        from app.core.config import Settings
        from app.factory import create_app

        self.app = create_app(Settings(database_url=self.db_url, data_dir=Path(data_dir) / "probe"))
        self.engine = app_services(self.app).engine

    def stop(self):
        self.server.stop()
        self.engine.dispose()


def sign_in(page, base: str, username: str, lang: str = "en") -> None:
    page.goto(f"{base}/{lang}/signin")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.locator("form input[name=password]").press("Enter")
    page.wait_for_selector("body[data-signed-in]", state="attached")  # the name itself may sit in the phone menu
