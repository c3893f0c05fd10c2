"""One host, several GPUs, one grading dispatcher per GPU: a real run through HTTP.

    python -m app.bench.submissions_multigpu [--gpus 2] [--learners 30] [--jobs 60] [--out DIR]

The web server runs without a dispatcher (``MKC_DISPATCHER_ENABLED=false``); each GPU gets its own
``python -m app dispatcher --gpu-index N`` process (CUDA_VISIBLE_DEVICES=N for its sandboxed GPU
workers, a GPU lock per device, its own lane), all on one SQLite database (the embedded mode: the
GPU image has no PostgreSQL). Phases:

1. one dispatcher: ``--jobs`` gemm submissions from ``--learners`` learners (correct, wrong and
   hostile kernels, cycled) through HTTP; jobs per minute;
2. every dispatcher: the same mix again; jobs per minute (target: >= 1.8x phase 1 with 2 GPUs);
3. kill -9 of the dispatcher of the last GPU while it runs a job: that job must finish on another.

Checked on every job of every phase: graded exactly once (one ``exercise_attempted`` event per
submission), the result names the physical card (``gpu.pci_bus_id``) and the dispatcher's lane, no
two jobs overlapped on one card (engine start -> finish intervals), every card was used, and each
kernel file's verdict and message code equal a direct ``kernels.engine.grade()`` call.
Prints the figures and writes multigpu.json to --out; exit 0 only when every check holds.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.bench.submissions_gpu import KERNELS, Client, launch_of
from app.bench.submissions_server import Server, add_users
from app.core.config import PROJECT_ROOT

T0 = time.monotonic()


def say(text: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {text}", flush=True)


def gemm_files() -> list[Path]:
    folder = KERNELS / "gemm"
    return (sorted((folder / "solutions" / "correct").glob("*.cu")) + sorted((folder / "solutions" / "wrong").glob("*.cu"))
            + sorted((folder / "hostile").glob("*.cu")))


class Dispatchers:
    """One ``python -m app dispatcher --gpu-index N`` process per GPU, on the server's database."""

    def __init__(self, server: Server, workdir: Path):
        self.server, self.workdir = server, workdir
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    def start(self, index: int) -> None:
        log = (self.workdir / f"dispatcher-gpu{index}.log").open("ab")
        self.procs[index] = subprocess.Popen([sys.executable, "-m", "app", "dispatcher", "--gpu-index", str(index)],
                                             cwd=PROJECT_ROOT, env=self.server.env, stdout=log, stderr=subprocess.STDOUT,
                                             start_new_session=True)

    def stop(self, index: int, *, kill9: bool = False) -> None:
        proc = self.procs.pop(index, None)
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGKILL if kill9 else signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    def stop_all(self) -> None:
        for index in list(self.procs):
            self.stop(index)

    def log_tail(self, index: int) -> str:
        path = self.workdir / f"dispatcher-gpu{index}.log"
        return path.read_text(errors="replace")[-3000:] if path.is_file() else ""


def submit_mix(client: Client, learners: list[str], files: list[Path], n: int, tag: str) -> dict[int, tuple[str, Path]]:
    jobs = {}
    for i in range(n):
        user, path = learners[i % len(learners)], files[i % len(files)]
        # a unique trailer: every job compiles and runs (no cache hit makes a phase look faster)
        source = path.read_text(encoding="utf-8") + f"\n// {tag} {secrets.token_hex(6)}\n"
        jobs[client.submit(user, "gemm", source, launch_of(path))] = (user, path)
    return jobs


def rows_of(db_url: str, ids: Iterable[int], *, count_graded: bool = True) -> dict[int, dict[str, Any]]:
    """What the dispatchers wrote: lane, attempts, engine start/finish, the result's GPU, and (unless
    ``count_graded`` is off: the polls while waiting) how many graded events each submission has."""
    from sqlalchemy import select

    from app.core.db import make_engine, make_session_factory
    from app.progress.models import Event
    from app.submissions.models import Submission

    engine = make_engine(db_url)
    out: dict[int, dict[str, Any]] = {}
    with make_session_factory(engine)() as db:
        graded: dict[str, int] = defaultdict(int)
        events: Iterable[Any] = (db.scalars(select(Event.data).where(Event.kind == "exercise_attempted"))
                                 if count_graded else [])
        for data in events:
            payload = json.loads(data) if isinstance(data, str) else (data or {})
            graded[str(payload.get("submission"))] += 1
        for row in db.scalars(select(Submission).where(Submission.id.in_(list(ids)))):
            result = json.loads(row.result) if row.result else {}
            out[row.id] = {"state": row.state, "verdict": row.verdict, "lane": row.lane, "attempts": row.attempts,
                           "claimed_at": row.claimed_at, "started_at": row.started_at, "finished_at": row.finished_at,
                           "code": (result.get("message") or {}).get("code"),
                           "ran_on_gpu": bool(result.get("correctness")),
                           "card": (result.get("gpu") or {}).get("pci_bus_id"),
                           "gpu": (result.get("gpu") or {}).get("name"), "graded": graded[str(row.id)]}
    engine.dispose()
    return out


def wait_done(db_url: str, ids: Iterable[int], deadline: float) -> dict[int, dict[str, Any]]:
    while True:
        rows = rows_of(db_url, ids, count_graded=False)
        if all(r["state"] == "done" for r in rows.values()) or time.monotonic() > deadline:
            return rows_of(db_url, ids)
        time.sleep(0.5)


def jobs_per_minute(rows: dict[int, dict[str, Any]]) -> float | None:
    done = [r for r in rows.values() if r["started_at"] and r["finished_at"]]
    if len(done) < 2:
        return None
    span = (max(r["finished_at"] for r in done) - min(r["started_at"] for r in done)).total_seconds()
    return round(len(done) / span * 60, 1) if span > 0 else None


def gpu_busy(rows: dict[int, dict[str, Any]]) -> dict[str, float]:
    """Per card: the share of the phase's span spent inside a job (engine start -> finish)."""
    done = [r for r in rows.values() if r["card"] and r["started_at"] and r["finished_at"]]
    if not done:
        return {}
    span = (max(r["finished_at"] for r in done) - min(r["started_at"] for r in done)).total_seconds()
    busy: dict[str, float] = defaultdict(float)
    for r in done:
        busy[r["card"]] += (r["finished_at"] - r["started_at"]).total_seconds()
    return {card: round(seconds / span, 3) for card, seconds in sorted(busy.items())} if span > 0 else {}


def overlaps(rows: dict[int, dict[str, Any]]) -> list[tuple[int, int]]:
    """Pairs of jobs whose engine runs overlapped on one physical card."""
    by_card: dict[str, list[tuple[dt.datetime, dt.datetime, int]]] = defaultdict(list)
    for sub_id, r in rows.items():
        if r["card"] and r["started_at"] and r["finished_at"]:
            by_card[r["card"]].append((r["started_at"], r["finished_at"], sub_id))
    bad = []
    for intervals in by_card.values():
        intervals.sort()
        for (_, end, a), (start, _, b) in zip(intervals, intervals[1:], strict=False):
            if start < end:
                bad.append((a, b))
    return bad


def running_on(db_url: str, lane_suffix: str) -> int | None:
    from sqlalchemy import select

    from app.core.db import make_engine, make_session_factory
    from app.submissions import states
    from app.submissions.models import Submission

    engine = make_engine(db_url)
    with make_session_factory(engine)() as db:
        found = db.scalar(select(Submission.id).where(Submission.state.in_(states.RUNNING),
                                                      Submission.lane.like(f"%{lane_suffix}"),
                                                      Submission.started_at.is_not(None)).limit(1))
    engine.dispose()
    return found


def direct_verdicts(files: list[Path], deadline: float) -> dict[str, tuple[str, str]]:
    from kernels.engine import grade

    out = {}
    for path in files:
        if time.monotonic() > deadline:
            break
        result = grade("gemm", path.read_text(encoding="utf-8"), launch_of(path))
        out[path.name] = (result.verdict.value, result.message.code)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--learners", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=60)
    ap.add_argument("--lease-seconds", type=float, default=10.0, help="a killed dispatcher's job waits this long")
    ap.add_argument("--budget", type=float, default=540.0)
    ap.add_argument("--out", default=".")
    args = ap.parse_args(argv)
    deadline = T0 + args.budget
    files = gemm_files()
    report: dict[str, Any] = {"gpus": args.gpus, "jobs": args.jobs, "learners": args.learners, "files": len(files)}
    all_rows: dict[int, dict[str, Any]] = {}
    paths: dict[int, Path] = {}
    with tempfile.TemporaryDirectory(prefix="mkc-multigpu-") as tmp:
        server = Server(Path(tmp), dispatcher_enabled="false", dispatcher_gpu="on", submission_max_in_flight="100",
                        submission_per_hour="1000", submission_per_day="1000",
                        submission_lease_seconds=str(args.lease_seconds), dispatcher_poll_seconds="0.1")
        server.start(timeout=120)
        dispatchers = Dispatchers(server, Path(tmp))
        try:
            learners = [f"learner{i:02d}" for i in range(args.learners)]
            client = Client(server.url, add_users(server.db_url, learners, token_only=True))
            for phase, gpus in (("one_gpu", [0]), ("all_gpus", list(range(args.gpus)))):
                for index in gpus:
                    dispatchers.start(index)
                # warm-up, off the clock: until every dispatcher has graded a job (its compile worker
                # and GPU worker started; a cold GPU worker costs seconds that are not throughput)
                warmed: set[str] = set()
                while len(warmed) < len(gpus) and time.monotonic() < deadline:
                    warm = submit_mix(client, learners, files[:1], 2 * len(gpus), f"warm-{phase}")
                    warmed |= {str(r["lane"]) for r in wait_done(server.db_url, warm, deadline).values()}
                jobs = submit_mix(client, learners, files, args.jobs, phase)
                say(f"{phase}: {len(jobs)} jobs stored for {len(gpus)} dispatcher(s)")
                rows = wait_done(server.db_url, jobs, deadline)
                all_rows.update(rows)
                paths.update({sub_id: path for sub_id, (_, path) in jobs.items()})
                service = sorted((r["finished_at"] - r["started_at"]).total_seconds() for r in rows.values()
                                 if r["started_at"] and r["finished_at"])
                report[phase] = {"service_s_median": round(service[len(service) // 2], 3) if service else None,
                                 "service_s_sum": round(sum(service), 1), "dispatchers": len(gpus),
                                 "finished": sum(r["state"] == "done" for r in rows.values()),
                                 "jobs_per_minute": jobs_per_minute(rows), "gpu_busy": gpu_busy(rows),
                                 "by_lane": dict(sorted(_count(r["lane"] for r in rows.values()).items())),
                                 "by_card": dict(sorted(_count(r["card"] for r in rows.values()).items()))}
                say(f"{phase}: " + json.dumps(report[phase]))
                if phase == "one_gpu":
                    dispatchers.stop_all()
            # kill -9 of the last GPU's dispatcher while it runs a job
            last = args.gpus - 1
            more = submit_mix(client, learners, files, max(10, 2 * args.gpus), "failover")
            victim = None
            while victim is None and time.monotonic() < deadline:
                victim = running_on(server.db_url, f"gpu{last}")
                time.sleep(0.05)
            dispatchers.stop(last, kill9=True)
            say(f"failover: kill -9 of the gpu{last} dispatcher while it ran job {victim}")
            rows = wait_done(server.db_url, more, deadline)
            all_rows.update(rows)
            paths.update({sub_id: path for sub_id, (_, path) in more.items()})
            moved = rows.get(victim) if victim else None
            report["failover"] = {"victim": victim, "victim_after": _plain(moved),
                                  "finished": sum(r["state"] == "done" for r in rows.values()), "jobs": len(more)}
            say("failover: " + json.dumps(report["failover"], default=str))
            dispatchers.stop_all()
            report["dispatcher_log_tail"] = {i: dispatchers.log_tail(i) for i in range(args.gpus)}
        finally:
            dispatchers.stop_all()
            server.stop()
    say("direct engine calls, one per kernel file")
    direct = direct_verdicts(files, deadline + 120)
    # the verdict must be equal; the message code may differ only for a kernel that changes its own
    # behaviour between launches (warm_then_lazy: which launch catches it depends on the worker's history)
    mismatches = [(sub_id, paths[sub_id].name, r["verdict"], (direct.get(paths[sub_id].name) or (None,))[0])
                  for sub_id, r in all_rows.items() if r["verdict"] != (direct.get(paths[sub_id].name) or (None,))[0]]
    code_differs = sorted({paths[sub_id].name for sub_id, r in all_rows.items()
                           if paths[sub_id].name in direct and r["code"] != direct[paths[sub_id].name][1]})
    cards = sorted({r["card"] for r in all_rows.values() if r["card"]})
    # a kernel refused at compile or at launch checks never reaches a GPU: its result names no card
    on_gpu = {sub_id: r for sub_id, r in all_rows.items() if r["ran_on_gpu"]}
    lane_cards: dict[str, set[str]] = defaultdict(set)
    for r in on_gpu.values():
        lane_cards[str(r["lane"])].add(str(r["card"]))
    one, many = report.get("one_gpu", {}), report.get("all_gpus", {})
    ratio = (many.get("jobs_per_minute") or 0) / one["jobs_per_minute"] if one.get("jobs_per_minute") else None
    moved = report.get("failover", {}).get("victim_after") or {}
    checks = {
        "every job done": all(r["state"] == "done" for r in all_rows.values()),
        "graded exactly once": all(r["graded"] == 1 for r in all_rows.values()),
        "result names its card (jobs that reached a GPU)": all(r["card"] for r in on_gpu.values()),
        "one card per lane": all(len(c) == 1 for c in lane_cards.values()),
        "no overlap on a card": not overlaps(all_rows),
        "every card used": len(cards) == args.gpus,
        "verdicts equal a direct call": not mismatches,
        f"{args.gpus} dispatchers >= {0.9 * args.gpus:.1f}x one": ratio is not None and ratio >= 0.9 * args.gpus,
        "killed dispatcher's job finished on another": bool(moved) and moved.get("state") == "done"
        and not str(moved.get("lane", "")).endswith(f"gpu{last}") and moved.get("graded") == 1,
    }
    report.update(cards=cards, lanes={k: sorted(v) for k, v in lane_cards.items()}, ratio=ratio,
                  overlaps=overlaps(all_rows), mismatches=mismatches, code_differs=code_differs, checks=checks,
                  rows={sub_id: {**(_plain(r) or {}), "file": paths[sub_id].name} for sub_id, r in all_rows.items()},
                  gpu=next((r["gpu"] for r in all_rows.values() if r["gpu"]), None))
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "multigpu.json").write_text(json.dumps(report, indent=1, default=str))
    print(f"\nGPU: {report['gpu']} x{args.gpus}; cards {cards}")
    print(f"1 dispatcher: {one.get('jobs_per_minute')} jobs/min; {args.gpus} dispatchers: "
          f"{many.get('jobs_per_minute')} jobs/min; ratio {ratio and round(ratio, 2)}")
    if code_differs:
        print(f"message codes differing from the direct call (verdicts equal): {code_differs}")
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


def _count(values: Iterable[object]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for v in values:
        out[str(v)] += 1
    return out


def _plain(row: dict[str, Any] | None) -> dict[str, Any] | None:
    return {k: (v.isoformat() if isinstance(v, dt.datetime) else v) for k, v in row.items()} if row else None


if __name__ == "__main__":
    sys.exit(main())
