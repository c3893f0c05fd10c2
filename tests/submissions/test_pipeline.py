"""One grading pipeline, two transports: the same scenarios run on the one-box lease queue (SQLite, the
in-process compile slots and GPU stage) and on procrastinate (PostgreSQL, ``python -m app worker``).
The GPU run and the compile are the fake GPU's (app.bench.fake_gpu: CI has no GPU); its log tells
which stage touched which job, and in what order."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from app.bench.fake_gpu import BOMB_MARK
from app.bench.submissions_cluster import Workers, gemm_source
from app.core.services import app_services
from tests.conftest import make_settings

FAKE = {"MKC_FAKE_GPU_SECONDS": "0.4", "MKC_FAKE_COMPILE_SECONDS": "0.02", "MKC_FAKE_BOMB_SECONDS": "6"}


class Transport:
    """A web app that stores submissions, and ``python -m app worker --gpu 0`` processes that grade
    them over this transport (the same command in both modes: ``MKC_QUEUE`` picks the transport)."""

    def __init__(self, kind: str, tmp_path: Path, make_client, request, **fake: str):
        self.kind, self.log, self.tmp_path = kind, tmp_path / "fake-gpu.log", tmp_path
        if kind == "procrastinate":
            self.db_url = request.getfixturevalue("pg_url")
        else:
            (tmp_path / "data").mkdir(exist_ok=True)
            self.db_url = f"sqlite:///{(tmp_path / 'data' / 'box.db').as_posix()}"
        self.client = make_client(make_settings(tmp_path, database_url=self.db_url, queue=kind,
                                                dispatcher_enabled=False, submission_max_in_flight=3))
        # Short leases and heartbeats: a killed worker's job is taken over within seconds.
        self.env = {**FAKE, **fake, "MKC_FAKE_GPU_LOG": str(self.log), "MKC_QUEUE": kind, "MKC_COMPILE_SLOTS": "2",
                    "MKC_SUBMISSION_LEASE_SECONDS": "3", "MKC_WORKER_HEARTBEAT_SECONDS": "0.5",
                    "MKC_WORKER_STALLED_SECONDS": "3"}
        self.workers: Workers | None = None

    def start(self, *, real_compile: bool = False) -> None:
        """``real_compile``: the compile stage is the engine's sandboxed NVRTC, not the fake's sleep."""
        if self.workers is None:
            self.workers = Workers(self.db_url, self.tmp_path / "workers", **self.env,
                                   **({"compile_first": None} if real_compile else {}))
        self.workers.start(0)

    def kill9(self) -> None:
        assert self.workers is not None
        self.workers.kill9(0)

    def stop(self) -> None:
        if self.workers is not None:
            self.workers.stop_all()

    def events(self) -> list[tuple[str, str]]:
        """(event, job tag) in the order the fake GPU logged them: compile, compiled, start, end."""
        if not self.log.exists():
            return []
        lines = [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]
        return [(line["ev"], line["tag"].removeprefix("// ")) for line in sorted(lines, key=lambda e: e["t"])]

    def wait_for(self, event: tuple[str, str], timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while event not in self.events():
            assert time.monotonic() < deadline, (event, self.events(), self.workers and self.workers.logs())
            time.sleep(0.05)


@pytest.fixture(params=["embedded", "procrastinate"])
def transport(request, tmp_path, make_client):
    made = Transport(request.param, tmp_path, make_client, request)
    yield made
    made.stop()


def bomb(tag: str) -> str:
    return gemm_source(tag).replace("// " + tag, f"// {BOMB_MARK}\n// {tag}")


def test_a_compile_bomb_does_not_delay_another_learners_gpu_stage_and_never_reaches_the_gpu(transport, api_for):
    bomber, honest = api_for(transport.client, "bomber"), api_for(transport.client, "honest")
    bombed = bomber.submit(bomb("bomb 0")).json()["id"]
    transport.start()
    transport.wait_for(("compile", "bomb 0"))  # the bomb holds a compile slot now
    good = honest.submit(gemm_source("honest 0")).json()["id"]
    assert honest.wait(good, timeout=60)["verdict"] == "PASSED"
    events = transport.events()
    assert ("compiled", "bomb 0") not in events  # graded while the bomb still burned its compile slot
    view = bomber.wait(bombed, timeout=60)
    assert view["verdict"] == "COMPILE_ERROR" and view["result"]["message"]["code"] == "COMPILE_TIMEOUT"
    # its first slice (MKC_COMPILE_SLICE_SECONDS, 2 s) ran out, then its compile with the full limit
    assert [e for e in transport.events() if e[1] == "bomb 0"] == [
        ("compile", "bomb 0"), ("sliced", "bomb 0"), ("compile", "bomb 0"), ("compiled", "bomb 0")]


def test_compile_errors_are_final_without_touching_the_gpu_lane(transport, api_for):
    ann = api_for(transport.client, "ann")
    broken = ann.submit(gemm_source("broken 0").replace("C[", "C[[")).json()["id"]
    fine = ann.submit(gemm_source("fine 0")).json()["id"]
    transport.start(real_compile=True)
    view = ann.wait(broken, timeout=120)
    assert view["state"] == "done" and view["verdict"] == "COMPILE_ERROR"
    assert ann.wait(fine, timeout=120)["verdict"] == "PASSED"
    gpu_runs = [tag for event, tag in transport.events() if event == "start"]
    assert gpu_runs == ["fine 0"]


def test_every_learners_first_job_before_anyones_second_and_one_learners_jobs_in_order(transport, api_for):
    ann, bob = api_for(transport.client, "ann"), api_for(transport.client, "bob")
    ids = [ann.submit(gemm_source(f"ann {n}")).json()["id"] for n in range(3)]
    ids.append(bob.submit(gemm_source("bob 0")).json()["id"])
    transport.start()
    for sub_id in ids:
        assert (ann if sub_id != ids[-1] else bob).wait(sub_id, timeout=90)["verdict"] == "PASSED"
    gpu_order = [tag for event, tag in transport.events() if event == "start"]
    assert sorted(gpu_order) == ["ann 0", "ann 1", "ann 2", "bob 0"]
    assert gpu_order.index("bob 0") < gpu_order.index("ann 1")
    assert [tag for tag in gpu_order if tag.startswith("ann")] == ["ann 0", "ann 1", "ann 2"]


@pytest.mark.parametrize("kind", ["embedded", "procrastinate"])
def test_a_lease_lost_mid_compile_and_mid_gpu_is_taken_over_once(kind, request, tmp_path, make_client, api_for):
    """kill -9 of the worker while it compiles, and again while the GPU runs: each time the next worker
    takes the job over, and it ends graded once (one GPU run finished, one result)."""
    transport = Transport(kind, tmp_path, make_client, request,
                          MKC_FAKE_COMPILE_SECONDS="2", MKC_FAKE_GPU_SECONDS="2")
    try:
        kim = api_for(transport.client, "kim")
        sub_id = kim.submit(gemm_source("slow 0")).json()["id"]
        transport.start()
        transport.wait_for(("compile", "slow 0"))
        transport.kill9()  # mid-compile
        transport.start()
        transport.wait_for(("start", "slow 0"))
        transport.kill9()  # mid-GPU
        transport.start()
        view = kim.wait(sub_id, timeout=120)
        assert view["verdict"] == "PASSED" and view["attempts"] == 2  # two GPU claims, one result
        runs = [event for event, tag in transport.events() if tag == "slow 0"]
        assert runs.count("compile") == 2 and runs.count("start") == 2 and runs.count("end") == 1
    finally:
        transport.stop()


def stepped_box(factory, *, slots: int, budget: float = 120, slice_seconds: float = 0.0):
    """The one-box pipeline driven step by step (no threads) with the fake GPU and compile stand-ins, this
    GPU's lane held."""
    from app.bench import fake_gpu
    from app.submissions.dispatcher import DispatcherConfig
    from app.submissions.pipeline import OneBoxPipeline

    pipeline = OneBoxPipeline(factory, DispatcherConfig(gpu=True, lane="box:gpu0"), slots=slots,
                              compile_budget_seconds=budget, grade=fake_gpu.grade, compile_first=fake_gpu.compile_first,
                              compile_slice_seconds=slice_seconds)
    assert pipeline.gpu.hold_lane(force=True)
    return pipeline


def test_a_compiled_job_says_it_waits_for_the_gpu_in_both_languages(tmp_path, make_client, api_for, db_url):
    """Between the stages the row is queued again; its text says it compiled and where it stands in the
    GPU's queue, not in the compile queue (a learner whose job still needs its compile is not ahead)."""

    client = make_client(make_settings(tmp_path, database_url=db_url, dispatcher_enabled=False))
    ann, bob = api_for(client, "ann"), api_for(client, "bob")
    first = ann.submit(gemm_source("ann 0")).json()["id"]
    pipeline = stepped_box(app_services(client.app).session_factory, slots=1)
    assert pipeline.compile_step()
    second = bob.submit(gemm_source("bob 0")).json()["id"]
    view = ann.client.get(f"/api/submissions/{first}?lang=en", headers=ann.headers).json()
    assert (view["state"], view["position"]) == ("queued", 1)
    assert view["state_text"] == "Compiled. Waiting for the GPU (position 1)."
    korean = ann.client.get(f"/api/submissions/{first}?lang=ko", headers=ann.headers).json()
    assert korean["state_text"] == "컴파일했어요. GPU를 기다리는 중이에요(1번째)."
    waiting = bob.client.get(f"/api/submissions/{second}?lang=en", headers=bob.headers).json()
    assert waiting["state_text"] == "Waiting in the queue (position 1)."
    assert pipeline.compile_step() and pipeline.gpu.step()  # bob compiled; ann's job is graded first
    assert ann.wait(first, timeout=30)["verdict"] == "PASSED"
    assert bob.client.get(f"/api/submissions/{second}?lang=en", headers=bob.headers).json()["state_text"] == \
        "Compiled. Waiting for the GPU (position 1)."
    pipeline.stop()


def test_worker_no_gpu_on_one_box_is_refused_with_the_reason(tmp_path):
    """`worker --gpu N` runs one GPU's grader in both modes; a compile-only worker is a cluster thing."""
    import subprocess
    import sys

    from app.core.config import PROJECT_ROOT

    env = {"MKC_DATABASE_URL": f"sqlite:///{tmp_path / 'box.db'}", "MKC_QUEUE": "embedded", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "app", "worker", "--no-gpu"], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--no-gpu is for cluster mode (MKC_QUEUE=procrastinate)" in done.stderr


def test_a_stalled_compile_of_a_learner_over_the_compile_budget_waits_once(tmp_path, make_client, api_for, db_url):
    """A slot died mid-compile (lease ran out) and its learner has used the hour's compile time: the row
    waits as queued, saying why, and is not picked again before then (no slot spins on it)."""
    import datetime as dt

    from sqlalchemy import update

    from app.core.clock import utcnow
    from app.submissions.models import Submission

    client = make_client(make_settings(tmp_path, database_url=db_url, dispatcher_enabled=False,
                                       submission_max_in_flight=3))
    kim = api_for(client, "kim")
    spent = kim.submit(gemm_source("spent")).json()["id"]
    stalled = kim.submit(gemm_source("stalled")).json()["id"]
    now = utcnow()
    factory = app_services(client.app).session_factory
    with factory() as db:  # the first used 200 s of compile ten minutes ago; the second's slot died
        db.execute(update(Submission).where(Submission.id == spent).values(
            state="done", verdict="PASSED", compile_ms=200_000, claimed_at=now - dt.timedelta(minutes=10),
            finished_at=now - dt.timedelta(minutes=9), recorded=True))
        db.execute(update(Submission).where(Submission.id == stalled).values(
            state="compiling", lease_owner="gone:1:dead", lease_expires_at=now - dt.timedelta(seconds=5)))
        db.commit()
    pipeline = stepped_box(factory, slots=1)
    assert pipeline.compile_step()  # held back
    assert not pipeline.compile_step()  # and not picked again
    view = kim.client.get(f"/api/submissions/{stalled}?lang=en", headers=kim.headers).json()
    assert (view["state"], view["waiting_reason"]) == ("queued", "compile_budget")
    assert view["state_text"].startswith("Waiting: you used this hour's compile time")
    pipeline.stop()


@pytest.fixture(params=["embedded", "procrastinate"])
def sliced(request, tmp_path, make_client):
    """A transport whose compiles get a 1 s first slice; a bomb burns 4 s with the full limit, a slow
    compile needs 1.5 s."""
    made = Transport(request.param, tmp_path, make_client, request, MKC_COMPILE_SLICE_SECONDS="1",
                     MKC_FAKE_BOMB_SECONDS="4", MKC_FAKE_SLOW_COMPILE_SECONDS="1.5")
    yield made
    made.stop()


def test_first_bombs_spend_one_slice_then_their_full_compiles_leave_a_slot_to_honest_learners(sliced, api_for):
    """Two learners' first bombs fill both slots for one slice only; each comes back for one compile with the
    full limit, and those long compiles share one slot of two, so honest compiles posted while one runs are
    compiled beside it. A kernel that only compiles slowly is a long compile too and is graded."""
    client = sliced.client
    bombers = [api_for(client, f"bomber{n}") for n in range(2)]
    slow, honest = api_for(client, "slow"), [api_for(client, f"honest{n}") for n in range(4)]
    bombs = [who.submit(bomb(f"bomb {n}")).json()["id"] for n, who in enumerate(bombers)]
    after_bomb = bombers[0].submit(gemm_source("bomber0 next")).json()["id"]  # waits behind the long compile
    sliced.start()
    sliced.wait_for(("sliced", "bomb 0"))
    sliced.wait_for(("sliced", "bomb 1"))
    deadline = time.monotonic() + 30  # then one bomb's compile with the full limit starts (4 s)
    while sum(event == "compile" for event, tag in sliced.events() if tag.startswith("bomb")) < 3:
        assert time.monotonic() < deadline, sliced.events()
        time.sleep(0.02)
    honest_ids = [(who, who.submit(gemm_source(f"honest {n}")).json()["id"]) for n, who in enumerate(honest)]
    slow_id = slow.submit(gemm_source("slow 0").replace("// slow 0", "// slow compile\n// slow 0")).json()["id"]
    for who, sub_id in honest_ids:
        assert who.wait(sub_id, timeout=60)["verdict"] == "PASSED"
    assert slow.wait(slow_id, timeout=60)["verdict"] == "PASSED"
    for who, sub_id in zip(bombers, bombs, strict=True):
        view = who.wait(sub_id, timeout=60)
        assert (view["verdict"], view["result"]["message"]["code"]) == ("COMPILE_ERROR", "COMPILE_TIMEOUT")
    assert bombers[0].wait(after_bomb, timeout=60)["verdict"] == "PASSED"
    events = sliced.events()
    # one learner's jobs in order: the bomber's next job is compiled only once the long compile is final
    assert events.index(("compile", "bomber0 next")) > events.index(("compiled", "bomb 0"))
    for tag in ("bomb 0", "bomb 1"):
        assert [e for e in events if e[1] == tag] == [("compile", tag), ("sliced", tag), ("compile", tag),
                                                      ("compiled", tag)]
    assert [e for e in events if e[1] == "slow 0"] == [("compile", "slow 0"), ("sliced", "slow 0"),
                                                       ("compile", "slow 0"), ("compiled", "slow 0"),
                                                       ("start", "slow 0"), ("end", "slow 0")]
    # Walk the log: a long compile runs from a tag's second "compile" to its "compiled".
    was_sliced: set[str] = set()
    long_now: set[str] = set()
    most_long_at_once, honest_beside_long = 0, 0
    for event, tag in events:
        if event == "sliced":
            was_sliced.add(tag)
        elif event == "compile" and tag in was_sliced:
            long_now.add(tag)
            most_long_at_once = max(most_long_at_once, len(long_now))
        elif event == "compiled":
            long_now.discard(tag)
        elif event == "compile" and tag.startswith("honest") and long_now:
            honest_beside_long += 1
    assert most_long_at_once == 1
    assert honest_beside_long >= 1


def test_a_long_compile_waits_says_why_in_both_languages_and_both_compiles_count_in_the_budget(
        tmp_path, make_client, api_for, db_url, monkeypatch):
    """Slot by slot: a bomb's first compile runs past its 1 s slice and waits as a long compile (its page says
    so); while the one slot of two that cooling learners share is taken it waits again; its compile with the
    full limit is its verdict, and its learner is then cooling. Both compiles count in the compile budget."""
    import datetime as dt

    from sqlalchemy import select

    from app.core.clock import utcnow
    from app.submissions import compiling, queue
    from app.submissions.models import Submission

    monkeypatch.setenv("MKC_FAKE_BOMB_SECONDS", "1.5")
    monkeypatch.setattr(compiling, "COOLDOWN_RETRY_SECONDS", 0)  # a row held at the shared slot may go on at once
    client = make_client(make_settings(tmp_path, database_url=db_url, dispatcher_enabled=False,
                                       submission_max_in_flight=3))
    kim = api_for(client, "kim")
    bombed = kim.submit(bomb("bomb 0")).json()["id"]
    later = kim.submit(gemm_source("kim 1")).json()["id"]
    factory = app_services(client.app).session_factory
    pipeline = stepped_box(factory, slots=2, budget=60, slice_seconds=1)

    def shown(sub_id: int, lang: str) -> dict:
        return kim.client.get(f"/api/submissions/{sub_id}?lang={lang}", headers=kim.headers).json()

    assert pipeline.stage.run(None, bombed) == "long"
    en, ko = shown(bombed, "en"), shown(bombed, "ko")
    assert (en["state"], en["waiting_reason"]) == ("queued", "compile_long")
    assert en["state_text"] == ("Waiting: your kernel needs more compile time than a first try gives, so it "
                                "compiles again with the full time limit in a slot that other learners leave free.")
    assert ko["state_text"] == ("첫 시도에 주어지는 시간보다 컴파일이 오래 걸려서 기다리고 있어요. "
                                "다른 학습자가 비워 둔 컴파일 자리에서 전체 시간 제한으로 다시 컴파일해요.")
    panel = kim.client.get(f"/ko/panel/submissions/{bombed}", headers=kim.headers)  # the learner's result panel
    assert panel.status_code == 200 and "다른 학습자가 비워 둔 컴파일 자리에서 전체 시간 제한으로 다시 컴파일해요." in panel.text
    with factory() as db:
        row = db.get(Submission, bombed)
        assert row is not None and row.long_compile_ms is not None and row.compile_ms is None
    assert pipeline.stage._take_cooling_slot()  # another long compile holds the shared slot
    assert pipeline.stage.run(None, bombed) == "cooling_down"
    assert shown(bombed, "en")["waiting_reason"] == "compile_long"
    pipeline.stage._give_cooling_slot()
    assert pipeline.stage.run(None, bombed) == "final"  # with the full limit
    view = kim.wait(bombed, timeout=30)
    assert (view["verdict"], view["result"]["message"]["code"]) == ("COMPILE_ERROR", "COMPILE_TIMEOUT")
    assert view["result"]["message"]["params"] == {"seconds": 1.5}
    with factory() as db:  # the slice slept 1 s and the full compile 1.5 s: the budget holds both
        user_id = db.scalar(select(Submission.user_id).where(Submission.id == bombed))
        used, _ = queue.compile_seconds_used(db, user_id, utcnow() - dt.timedelta(hours=1))
    assert used >= 2.5
    assert pipeline.stage._take_cooling_slot()  # kim is cooling now: her next job waits while the slot is taken
    assert pipeline.stage.run(None, later) == "cooling_down"
    held = shown(later, "en")
    assert (held["state"], held["waiting_reason"]) == ("queued", "compile_cooldown")
    assert held["state_text"].startswith("Waiting: your last compile ran out of time, so your compiles only take")
    pipeline.stage._give_cooling_slot()
    pipeline.stop()



def test_cancelling_a_long_compile_buys_no_fresh_slice_and_a_stale_slot_does_not_slice_it_again(
        tmp_path, make_client, api_for, db_url, monkeypatch):
    """A bomb that ran past its slice waits as a long compile. Its learner cancels it and submits again: that
    learner counts as cooling (the next job waits while the shared slot is taken), as after a timeout. And a
    slot that read the row before another slot marked it long cannot claim it for a second first slice."""
    from app.bench import fake_gpu
    from app.submissions.models import Submission

    monkeypatch.setenv("MKC_FAKE_BOMB_SECONDS", "1.5")
    client = make_client(make_settings(tmp_path, database_url=db_url, dispatcher_enabled=False,
                                       submission_max_in_flight=3))
    kim = api_for(client, "kim")
    first = kim.submit(bomb("bomb 0")).json()["id"]
    factory = app_services(client.app).session_factory
    pipeline = stepped_box(factory, slots=2, budget=60, slice_seconds=1)
    try:
        assert pipeline.stage.run(None, first) == "long"
        with factory() as db:
            spent = db.get(Submission, first).long_compile_ms
        # a slot that still took the row for a first slice: the claim checks the mark, and changes nothing
        stale = pipeline.slot_dispatchers[0].compile_claimed(first, fake_gpu.compile_first, lambda db, row: None,
                                                               long=False)
        assert stale == "skipped"
        with factory() as db:
            row = db.get(Submission, first)
            assert (row.state, row.long_compile_ms, row.compile_ms) == ("queued", spent, None)
        cancelled = kim.client.post(f"/api/submissions/{first}/cancel", headers=kim.headers)
        assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
        again = kim.submit(bomb("bomb 1")).json()["id"]
        assert pipeline.stage._take_cooling_slot()  # the slot cooling learners share is taken
        assert pipeline.stage.run(None, again) == "cooling_down"
        held = kim.client.get(f"/api/submissions/{again}?lang=en", headers=kim.headers).json()
        assert (held["state"], held["waiting_reason"]) == ("queued", "compile_cooldown")
        pipeline.stage._give_cooling_slot()
    finally:
        pipeline.stop()
