"""Several GPUs of one host, one grading worker per GPU: a real run through HTTP.

    python -m app.bench.submissions_multigpu [--gpus N] [--steps 1 2 4] [--jobs-per-worker 60]
                                             [--learners-per-worker 15] [--out DIR] [--fake-gpu]

The web server runs without a grader (``MKC_DISPATCHER_ENABLED=false``); each GPU gets its own
``python -m app worker --gpu N`` (the one-box pipeline with ``MKC_QUEUE=embedded``: its compile slots,
CUDA_VISIBLE_DEVICES=N for its sandboxed GPU workers, a GPU lock per device, its own lane), all on one
SQLite database (the embedded mode: the GPU image has no PostgreSQL).

Steps: for each worker count n of ``--steps`` (default 1, 2 and every GPU), n fresh workers on GPUs
0..n-1, warmed off the clock (each grades a job first), then a burst of n x ``--jobs-per-worker`` gemm
submissions (correct, wrong and hostile kernels, cycled; each with a unique trailer, so every one
compiles) from n x ``--learners-per-worker`` learners, all posted at once through HTTP. Per step:

- jobs per minute (first engine start to last finish) and its ratio to n x the one-worker rate
  (target >= 0.9);
- the service time per job (grade() called -> done) median and p95, and its ratio to one worker's
  (target <= 1.10), with where the time went: per-phase medians from the stored results (the compile
  stage; the engine's phases; the wait for the GPU lock and for a warmed GPU worker, the job on it,
  its reaping, that GPU worker's start-up: imports and context; cold starts) and their change from
  one worker; the worker processes' start-up (spawn -> lane held);
- the host's load average (before, highest, after) and the share of its CPU time busy during the
  burst; each card's busy share (engine start -> finish over the burst's span).

Then failover: kill -9 of the last GPU's worker while it runs a job; that job must finish on another.

Checked on every job: graded exactly once (one ``exercise_attempted`` event per submission), the
result names the physical card (``gpu.pci_bus_id``) and the worker's lane, no two jobs overlapped on
one card (engine start -> finish intervals), every card was used, and each kernel file's verdict and
message code equal a direct grade of it in this process.

``--fake-gpu``: no GPU needed (tests, a dry run): the workers grade with ``app.bench.fake_gpu``
(``grade_on_card``: a sleep of ``--fake-gpu-seconds`` on a card named after the worker's index) and
its compile stand-in, and the direct grades are the same stand-ins.
Prints the figures and writes multigpu.json (and the workers' logs) to --out; exit 0 only when every
check holds.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.bench.host_load import HostLoad
from app.bench.submissions_cluster import Workers
from app.bench.submissions_gpu import KERNELS, Client, launch_of
from app.bench.submissions_server import Server, add_users
from kernels.engine.gpu.runner import WORKER_STAGES

T0 = time.monotonic()


def say(text: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {text}", flush=True)


def gemm_files() -> list[Path]:
    folder = KERNELS / "gemm"
    return (sorted((folder / "solutions" / "correct").glob("*.cu")) + sorted((folder / "solutions" / "wrong").glob("*.cu"))
            + sorted((folder / "hostile").glob("*.cu")))


FAKE_GRADE = "app.bench.fake_gpu:grade_on_card"
FAKE_COMPILE = "app.bench.fake_gpu:compile_first"


def gpu_count() -> int:
    """GPUs on this host, as nvidia-smi lists them (0 when it is missing)."""
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(line.startswith("GPU ") for line in listed.splitlines())


def lane_held_by(db_url: str, pid: int) -> bool:
    """The worker process ``pid`` holds its GPU lane (its owner is ``host:pid:nonce``): it takes jobs."""
    from sqlalchemy import select

    from app.core.db import make_engine, make_session_factory
    from app.submissions.models import DispatcherLane

    engine = make_engine(db_url)
    with make_session_factory(engine)() as db:
        owners = list(db.scalars(select(DispatcherLane.owner).where(DispatcherLane.owner.is_not(None))))
    engine.dispose()
    return any(f":{pid}:" in str(owner) for owner in owners)


def start_workers(workers: Workers, db_url: str, gpus: list[int], deadline: float) -> dict[int, float | None]:
    """``python -m app worker --gpu N`` for each of ``gpus``; seconds from spawn until each holds its lane."""
    spawned = {gpu: (time.monotonic(), workers.start(gpu)) for gpu in gpus}
    ready: dict[int, float | None] = {}
    while len(ready) < len(gpus) and time.monotonic() < deadline:
        for gpu, (t, proc) in spawned.items():
            if gpu in ready:
                continue
            if proc.poll() is not None:
                raise RuntimeError(f"worker --gpu {gpu} exited ({proc.returncode}):\n{workers.logs()}")
            if lane_held_by(db_url, proc.pid):
                ready[gpu] = round(time.monotonic() - t, 2)
        time.sleep(0.1)
    return {gpu: ready.get(gpu) for gpu in gpus}


def submit_mix(client: Client, learners: list[str], files: list[Path], n: int, tag: str) -> dict[int, tuple[str, Path]]:
    jobs = {}
    for i in range(n):
        user, path = learners[i % len(learners)], files[i % len(files)]
        # a unique trailer: every job compiles and runs (no cache hit makes a phase look faster)
        source = path.read_text(encoding="utf-8") + f"\n// {tag} {secrets.token_hex(6)}\n"
        jobs[client.submit(user, "gemm", source, launch_of(path))] = (user, path)
    return jobs


def rows_of(db_url: str, ids: Iterable[int], *, count_graded: bool = True) -> dict[int, dict[str, Any]]:
    """What the workers wrote: lane, attempts, stored/engine start/finish, the result's GPU, where the
    job's time went (``figures``, ms) and (unless ``count_graded`` is off: the polls while waiting) how
    many graded events each submission has."""
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
            out[row.id] = {"state": row.state, "recorded": bool(row.recorded), "verdict": row.verdict,
                           "lane": row.lane, "attempts": row.attempts,
                           "created_at": row.created_at, "claimed_at": row.claimed_at, "started_at": row.started_at,
                           "finished_at": row.finished_at, "code": (result.get("message") or {}).get("code"),
                           "ran_on_gpu": bool(result.get("correctness")),
                           "card": (result.get("gpu") or {}).get("pci_bus_id"),
                           "gpu": (result.get("gpu") or {}).get("name"), "graded": graded[str(row.id)],
                           "figures": job_figures(row.compile_ms, row.started_at, row.finished_at, result)}
    engine.dispose()
    return out


# Where a job's time goes (ms), from its stored result's ``versions`` (kernels/engine/gpu/runner.py)
PROFILE = {"wait_lock": "gpu_wait_lock_ms", "wait_spare": "gpu_wait_spare_ms", "gpu_job": "gpu_job_ms",
           "reap": "gpu_reap_ms", "gpu_worker_imports": "gpu_worker_imports_ms",
           "gpu_worker_warm": "gpu_worker_warm_ms",
           **{f"stage_{name}": f"gpu_stage_{name}_ms" for name in WORKER_STAGES}}


def job_figures(compile_ms: int | None, started: dt.datetime | None, finished: dt.datetime | None,
                result: dict[str, Any]) -> dict[str, float]:
    """One job's milliseconds: the compile stage, the service (grade() called -> done), each engine
    phase, the runner's waits, job, reaping and its GPU worker's start-up, and ``outside_engine``:
    the service less the engine's phases (state updates, storing the result, paying XP)."""
    out: dict[str, float] = {}
    if compile_ms is not None:
        out["compile_stage"] = float(compile_ms)
    phases = {str(p.get("name")): float(p.get("ms") or 0) for p in result.get("phases") or []}
    out.update({f"engine_{name}": ms for name, ms in phases.items()})
    if "checking" in phases:  # what the job held the GPU for (the learner's GPU budget counts it)
        out["gpu_held"] = phases["checking"] + phases.get("timing", 0.0)
    versions = result.get("versions") or {}
    for name, key in PROFILE.items():
        try:
            out[name] = float(versions[key])
        except (KeyError, TypeError, ValueError):
            pass
    if started and finished:
        out["service"] = (finished - started).total_seconds() * 1000
        if phases:
            out["outside_engine"] = out["service"] - sum(phases.values())
    if versions.get("gpu_cold_start") is not None:
        out["cold_start"] = float(versions.get("gpu_cold_start") == "True")
    return out


def medians(rows: Iterable[dict[str, Any]]) -> dict[str, float]:
    """Median of each figure over the jobs that have it (cold_start: the share of cold starts)."""
    import statistics

    per: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        for name, ms in r["figures"].items():
            per[name].append(ms)
    return {name: round(statistics.mean(xs) if name == "cold_start" else statistics.median(xs), 1)
            for name, xs in sorted(per.items())}


def wait_done(db_url: str, ids: Iterable[int], deadline: float) -> dict[int, dict[str, Any]]:
    """Until every job is done and recorded: the verdict and its XP are two transactions, so a job seen
    "done" a moment after its verdict was stored may not have its graded event yet."""
    while True:
        rows = rows_of(db_url, ids, count_graded=False)
        if all(r["state"] == "done" and r["recorded"] for r in rows.values()) or time.monotonic() > deadline:
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


def catch_running(db_url: str, lane_suffix: str, ids: Iterable[int], fresh_s: float, deadline: float) -> int | None:
    """A job of ``ids`` that the lane ending in ``lane_suffix`` started less than ``fresh_s`` ago (so a
    kill right now lands while it runs), or None by the deadline."""
    from sqlalchemy import select

    from app.core.clock import utcnow
    from app.core.db import make_engine, make_session_factory
    from app.submissions import states
    from app.submissions.models import Submission

    engine = make_engine(db_url)
    try:
        with make_session_factory(engine)() as db:
            while time.monotonic() < deadline:
                found = db.execute(select(Submission.id, Submission.started_at).where(
                    Submission.id.in_(list(ids)), Submission.state.in_(states.RUNNING),
                    Submission.lane.like(f"%{lane_suffix}"), Submission.started_at.is_not(None))).first()
                db.rollback()
                if found and (utcnow() - found.started_at).total_seconds() < fresh_s:
                    return int(found.id)
                time.sleep(0.01)
    finally:
        engine.dispose()
    return None


def direct_verdicts(files: list[Path], deadline: float, *, fake: bool) -> dict[str, tuple[str, str]]:
    """Each file graded here, once: by the engine (or by the fake GPU's compile and grade stand-ins)."""
    if fake:
        from app.bench.fake_gpu import compile_first, grade_on_card

        def grade(exercise: str, source: str, launch: Any) -> Any:
            return compile_first(exercise, source, launch) or grade_on_card(exercise, source, launch)
    else:
        from kernels.engine import grade  # type: ignore[assignment]

    out = {}
    for path in files:
        if time.monotonic() > deadline:
            break
        result = grade("gemm", path.read_text(encoding="utf-8"), launch_of(path))
        out[path.name] = (result.verdict.value, result.message.code)
    return out


def step_report(rows: dict[int, dict[str, Any]], n: int, load: dict[str, Any],
                ready: dict[int, float | None]) -> dict[str, Any]:
    service = sorted(r["figures"]["service"] / 1000 for r in rows.values() if "service" in r["figures"])
    return {"workers": n, "jobs": len(rows), "finished": sum(r["state"] == "done" for r in rows.values()),
            "jobs_per_minute": jobs_per_minute(rows),
            "service_s_median": round(service[len(service) // 2], 3) if service else None,
            "service_s_p95": round(service[min(len(service) - 1, round(0.95 * (len(service) - 1)))], 3) if service else None,
            "service_s_sum": round(sum(service), 1), "phases_ms_median": medians(rows.values()),
            "worker_ready_s": ready, "host": load, "gpu_busy": gpu_busy(rows),
            "by_lane": dict(sorted(_count(r["lane"] for r in rows.values()).items())),
            "by_card": dict(sorted(_count(r["card"] for r in rows.values()).items()))}


def compare(steps: list[dict[str, Any]]) -> None:
    """Each step against one worker: jobs/min over n x one's, service median over one's, and how
    much each phase's median moved."""
    one = next((s for s in steps if s["workers"] == 1), None)
    for step in steps:
        if not one:
            step.update(linear_ratio=None, service_ratio=None, gpu_held_ratio=None, phase_change_ms={})
            continue
        rate, base = step["jobs_per_minute"], one["jobs_per_minute"]
        step["linear_ratio"] = round(rate / (step["workers"] * base), 3) if rate and base else None
        service, base_service = step["service_s_median"], one["service_s_median"]
        step["service_ratio"] = round(service / base_service, 3) if service and base_service else None
        held, base_held = step["phases_ms_median"].get("gpu_held"), one["phases_ms_median"].get("gpu_held")
        step["gpu_held_ratio"] = round(held / base_held, 3) if held and base_held else None
        step["phase_change_ms"] = {name: round(ms - one["phases_ms_median"][name], 1)
                                   for name, ms in step["phases_ms_median"].items() if name in one["phases_ms_median"]}


def print_step(step: dict[str, Any]) -> None:
    host = step["host"]
    print(f"{step['workers']} worker(s): {step['finished']}/{step['jobs']} jobs, {step['jobs_per_minute']} jobs/min "
          f"({step.get('linear_ratio')} of linear); service median {step['service_s_median']} s, p95 "
          f"{step['service_s_p95']} s ({step.get('service_ratio')} x one worker's; GPU held per job "
          f"{step.get('gpu_held_ratio')} x one's); workers ready after "
          f"{step['worker_ready_s']} s")
    print("   phase medians ms: " + ", ".join(f"{k} {v}" for k, v in step["phases_ms_median"].items()))
    if step.get("phase_change_ms") and step["workers"] != 1:
        print("   change from 1 worker ms: " + ", ".join(f"{k} {v:+}" for k, v in step["phase_change_ms"].items()))
    print(f"   host: {host['cpus']} CPUs, CPU busy {host['cpu_busy_share']}, load 1m {host['loadavg_before'][:1]} -> "
          f"max {host['loadavg_1m_max']} -> {host['loadavg_after'][:1]}; GPU busy {step['gpu_busy']}")
    if "stop_s" in step:
        print(f"   workers stopped (SIGTERM, drain) in {step['stop_s']} s; did not drain in 20 s: "
              f"{step['drain_timeouts'] or 'none'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpus", type=int, default=None, help="GPUs to use (default: every GPU; 2 with --fake-gpu)")
    ap.add_argument("--steps", type=int, nargs="+", default=None,
                    help="worker counts, one burst each (default: 1, 2 and every GPU)")
    ap.add_argument("--jobs-per-worker", type=int, default=60)
    ap.add_argument("--learners-per-worker", type=int, default=15)
    ap.add_argument("--lease-seconds", type=float, default=10.0, help="a killed worker's job waits this long")
    ap.add_argument("--no-failover", action="store_true", help="skip the kill -9 phase")
    ap.add_argument("--budget", type=float, default=540.0, help="seconds for the steps and the failover")
    ap.add_argument("--direct-budget", type=float, default=120.0, help="then seconds for the direct grades")
    ap.add_argument("--fake-gpu", action="store_true", help="grade with app.bench.fake_gpu (no GPU needed)")
    ap.add_argument("--fake-gpu-seconds", type=float, default=0.3)
    ap.add_argument("--out", default=".")
    args = ap.parse_args(argv)
    gpus = args.gpus or (2 if args.fake_gpu else gpu_count())
    steps = sorted(set(args.steps or [1, 2, gpus]))
    if gpus < 1 or steps[0] < 1 or steps[-1] > gpus:
        print(f"error: steps {steps} need 1 to {gpus} GPUs (found {gpus}; --fake-gpu needs none)", file=sys.stderr)
        return 2
    deadline = T0 + args.budget
    # `timeout` sends SIGTERM: leave through the finally blocks, which stop the workers (each in its own
    # session, so nothing else would) and the server
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    files = gemm_files()
    report: dict[str, Any] = {"gpus": gpus, "steps": [], "jobs_per_worker": args.jobs_per_worker,
                              "learners_per_worker": args.learners_per_worker, "files": len(files),
                              "fake_gpu": args.fake_gpu}
    all_rows: dict[int, dict[str, Any]] = {}
    paths: dict[int, Path] = {}
    settings: dict[str, Any] = dict(dispatcher_enabled="false", dispatcher_gpu="on", submission_max_in_flight="100",
                    submission_per_hour="1000", submission_per_day="1000", submission_lease_seconds=str(args.lease_seconds),
                    dispatcher_poll_seconds="0.1", gpu_budget_seconds="0", compile_budget_seconds="3600")
    if args.fake_gpu:
        os.environ.update(MKC_FAKE_GPU_SECONDS=str(args.fake_gpu_seconds))  # the direct grades here, too
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    last = steps[-1] - 1
    with tempfile.TemporaryDirectory(prefix="mkc-multigpu-") as tmp:
        server = Server(Path(tmp), **settings)
        server.start(timeout=120)
        env = {k: v for k, v in server.env.items() if k.startswith("MKC_")}
        workers = Workers(server.db_url, Path(tmp) / "workers", grade=FAKE_GRADE if args.fake_gpu else None,
                          compile_first=FAKE_COMPILE if args.fake_gpu else None, **{**env, "MKC_QUEUE": "embedded"})
        try:
            learners = [f"learner{i:03d}" for i in range(steps[-1] * args.learners_per_worker)]
            client = Client(server.url, add_users(server.db_url, learners, token_only=True))
            for n in steps:
                mine = learners[:n * args.learners_per_worker]
                ready = start_workers(workers, server.db_url, list(range(n)), deadline)
                # warm-up, off the clock: until every worker has graded a job (its compile slots and GPU
                # worker started; a cold GPU worker costs seconds that are not throughput)
                warmed: set[str] = set()
                while len(warmed) < n and time.monotonic() < deadline:
                    warm = submit_mix(client, mine, files[:1], 2 * n, f"warm-{n}")
                    warmed |= {str(r["lane"]) for r in wait_done(server.db_url, warm, deadline).values()}
                with HostLoad() as load:
                    jobs = submit_mix(client, mine, files, n * args.jobs_per_worker, f"step-{n}")
                    say(f"{n} worker(s): {len(jobs)} jobs stored from {len(mine)} learners")
                    rows = wait_done(server.db_url, jobs, deadline)
                all_rows.update(rows)
                paths.update({sub_id: path for sub_id, (_, path) in jobs.items()})
                report["steps"].append(step_report(rows, n, load.report(), ready))
                say(f"{n} worker(s): " + json.dumps({k: v for k, v in report["steps"][-1].items()
                                                     if k not in ("by_lane", "by_card")}))
                if n != steps[-1] or args.no_failover or n < 2:
                    t_stop = time.monotonic()
                    workers.stop_all(timeout=20.0)  # idle after the burst: a drain takes a second or two
                    report["steps"][-1]["stop_s"] = round(time.monotonic() - t_stop, 1)
                    report["steps"][-1]["drain_timeouts"] = list(workers.drain_timeouts)
                    workers.drain_timeouts.clear()
            if not args.no_failover and steps[-1] >= 2:
                # kill -9 of the last GPU's worker while it runs a job: a correct kernel (checked and
                # timed: the longest of the mix's quick jobs) caught within its first 0.1 s
                correct = [f for f in files if f.parent.name == "correct"]
                more = submit_mix(client, learners, correct, max(10, 3 * steps[-1]), "failover")
                victim = catch_running(server.db_url, f"gpu{last}", more, 0.1, deadline)
                if last in workers.procs:
                    workers.kill9(last)
                say(f"failover: kill -9 of the gpu{last} worker while it ran job {victim}")
                rows = wait_done(server.db_url, more, deadline)
                all_rows.update(rows)
                paths.update({sub_id: path for sub_id, (_, path) in more.items()})
                moved = rows.get(victim) if victim else None
                report["failover"] = {"victim": victim, "victim_after": _plain(moved),
                                      "finished": sum(r["state"] == "done" for r in rows.values()), "jobs": len(more)}
                say("failover: " + json.dumps(report["failover"], default=str))
        finally:
            workers.stop_all()
            server.stop()
            logs = out / "multigpu-logs"
            logs.mkdir(exist_ok=True)
            for log in [*sorted((Path(tmp) / "workers").glob("worker*.log")), server.log]:
                if log.is_file():
                    shutil.copyfile(log, logs / log.name)
    compare(report["steps"])
    say("direct grades, one per kernel file")
    direct = direct_verdicts(files, max(deadline, time.monotonic()) + args.direct_budget, fake=args.fake_gpu)
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
    checks = {
        "every job done": bool(all_rows) and all(r["state"] == "done" for r in all_rows.values()),
        "graded exactly once": bool(all_rows) and all(r["graded"] == 1 for r in all_rows.values()),
        "result names its card (jobs that reached a GPU)": bool(on_gpu) and all(r["card"] for r in on_gpu.values()),
        "one card per lane": all(len(c) == 1 for c in lane_cards.values()),
        "no overlap on a card": not overlaps(all_rows),
        f"every card used ({steps[-1]})": len(cards) == steps[-1],
        "verdicts equal a direct grade": len(direct) == len(files) and not mismatches,
    }
    for step in report["steps"]:
        if step["workers"] > 1:
            checks[f"{step['workers']} workers >= 0.9 of linear"] = (step["linear_ratio"] or 0) >= 0.9
            checks[f"{step['workers']} workers: service per job <= 1.10 x one's"] = (
                step["service_ratio"] is not None and step["service_ratio"] <= 1.10)
    if "failover" in report:
        moved = report["failover"].get("victim_after") or {}
        checks["killed worker's job finished on another"] = (bool(moved) and moved.get("state") == "done"
                                                            and not str(moved.get("lane", "")).endswith(f"gpu{last}")
                                                            and moved.get("graded") == 1)
    report.update(cards=cards, lanes={k: sorted(v) for k, v in lane_cards.items()}, overlaps=overlaps(all_rows),
                  mismatches=mismatches, code_differs=code_differs, checks=checks,
                  rows={sub_id: {**(_plain(r) or {}), "file": paths[sub_id].name} for sub_id, r in all_rows.items()},
                  gpu=next((r["gpu"] for r in all_rows.values() if r["gpu"]), None))
    (out / "multigpu.json").write_text(json.dumps(report, indent=1, default=str))
    print(f"\nGPU: {report['gpu']} x{gpus}; cards {cards}")
    for step in report["steps"]:
        print_step(step)
    if code_differs:
        print(f"message codes differing from the direct grade (verdicts equal): {code_differs}")
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
