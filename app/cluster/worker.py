"""``python -m app worker --gpu N``: one grading worker bound to one GPU, the way to run several GPUs
on one host in both deployments. With ``MKC_QUEUE=embedded`` (one box) it runs the one-box pipeline
for GPU N (app/submissions/cli.py ``serve``; ``dispatcher --gpu-index N`` is its alias). With
``MKC_QUEUE=procrastinate`` (cluster mode) it runs on any host that reaches the PostgreSQL database:

- Binding: ``CUDA_VISIBLE_DEVICES=N`` is set in this process before anything asks for a GPU; the
  engine passes it into its sandboxed GPU workers, so the job runs on device N (seen there as 0).
- One job at a time: a procrastinate worker with concurrency 1 listening to the ``grading`` and
  ``maintenance`` queues. The job runs ``Dispatcher.run_claimed``: the same claim -> grade ->
  finish -> record steps as the one-box dispatcher.
- Compile off the GPU lane: a second procrastinate worker in the same process runs
  ``compile_slots`` compiles at once on CPU (``compile`` queue, app/cluster/compile.py) while the GPU
  times other jobs; only kernels that compiled reach the ``grading`` queue.
- Liveness: procrastinate's heartbeat every ``worker_heartbeat_seconds``; a worker silent for
  ``worker_stalled_seconds`` is dead and its job goes to another worker (``retry_stalled``).
- Draining: SIGTERM (or Ctrl-C) stops taking jobs, finishes the one in hand, then exits; a second
  signal aborts it (it is then retried elsewhere). With the database away the drain is bounded: the
  job's result waits ``DRAIN_STORE_SECONDS`` (10 s) more to be stored, then the job is left running in the
  queue and ``retry_stalled`` hands it to another worker. SIGUSR1 writes every thread's stack to the log.
- No GPU, no start: a worker for a GPU that the engine cannot use here refuses to start (exit 3,
  one line saying what it found and what to run instead) before it takes any job. A GPU that
  disappears later: the job in hand waits again for another worker and this one exits 3.
- Database faults: when PostgreSQL restarts or is unreachable, procrastinate's workers stop; this
  process starts them again once the database answers, with a growing wait, for up to
  ``worker_database_patience_seconds``; past that it exits 4 (a supervisor with Restart=always
  starts it again). A job that met the fault is retried, never finished with a verdict.

Exit status: 0 drained on a signal; 2 configuration; 3 no usable GPU; 4 database unreachable.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import faulthandler
import importlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from app.core.config import Settings

EXIT_CONFIG, EXIT_NO_GPU, EXIT_DATABASE = 2, 3, 4
FETCH_POLL_SECONDS = 1.0  # how often an idle worker looks for jobs without a notification (see run())
DRAIN_POOL_SECONDS = 2.0  # draining: the longest wait for a queue connection (fail_fast_on_drain)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("worker", help="one grading worker bound to one GPU (one box or cluster mode, by MKC_QUEUE)")
    p.add_argument("--gpu", type=int, default=0, help="CUDA device index this worker owns (default 0)")
    p.add_argument("--no-gpu", action="store_true", help="compile slots only (a CPU host)")
    p.add_argument("--compile-slots", type=int, default=None,
                   help="CPU compile slots in this process (default MKC_COMPILE_SLOTS; 0: none)")
    p.add_argument("--name", default=None, help="worker name shown by `queue` (default: <host>:gpu<N>)")
    p.add_argument("--grade", default=None, metavar="MODULE:FUNCTION",
                   help="grade() replacement, e.g. app.bench.fake_gpu:grade (benchmarks and tests without a GPU)")
    p.add_argument("--compile", default=None, metavar="MODULE:FUNCTION",
                   help="compile-stage replacement, e.g. app.bench.fake_gpu:compile_first (same use)")
    p.set_defaults(func=run)


def load_callable(path: str) -> Callable[..., Any]:
    module, _, name = path.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found


def run(args: argparse.Namespace) -> int:
    # Before anything imports CUDA or probes for a GPU: this process and its sandboxed GPU workers
    # see only device N.
    from app.submissions.lanes import bind_gpu

    bind_gpu(args.gpu, explicit=True)

    from app.cluster.jobs import ClusterConfigError, conninfo
    from app.core.config import Settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(quiet_maintenance)
    settings = Settings()
    embedded = settings.queue != "procrastinate"
    if embedded and args.no_gpu:
        print("error: --no-gpu is for cluster mode (MKC_QUEUE=procrastinate); on one box the compile slots "
              "run beside each GPU's grader (MKC_COMPILE_SLOTS)", file=sys.stderr)
        return EXIT_CONFIG
    if not embedded:
        try:
            conninfo(settings.resolved_database_url)
        except ClusterConfigError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_CONFIG
    if not args.no_gpu and not args.grade:  # a --grade stand-in (tests, benchmarks) needs no GPU
        problem = gpu_problem(args.gpu)
        if problem:
            print(problem, file=sys.stderr)
            return EXIT_NO_GPU
    if embedded:  # one box: the same pipeline over the lease queue, this GPU's lane
        from app.submissions.cli import serve

        return serve(settings, gpu_index=args.gpu, slots=args.compile_slots,
                     grade=load_callable(args.grade) if args.grade else None,
                     compile_first=load_callable(args.compile) if args.compile else None)
    return asyncio.run(_serve(args, settings))


def gpu_problem(index: int) -> str | None:
    """None when the engine can use GPU ``index`` here; else the one line the operator reads."""
    from kernels.engine.gpu import gpu_available

    if gpu_available():
        return None
    return (f"error: no usable GPU {index} on this host (CUDA_VISIBLE_DEVICES={index}: no CUDA device, or CuPy "
            "cannot use it); no job was taken. Run `python -m app worker --no-gpu` here to compile only, or "
            "start this worker on a host with that GPU (check with nvidia-smi).")


def quiet_maintenance(record: logging.LogRecord) -> bool:
    """Drop procrastinate's INFO lines about the periodic maintenance tasks (deferred, started, ended:
    every few seconds on every idle worker); their warnings and errors, and every grading job's lines,
    stay."""
    from app.cluster.jobs import RECONCILE_TASK, RETRY_TASK

    if record.levelno >= logging.WARNING or not record.name.startswith("procrastinate"):
        return True
    maintenance = (RETRY_TASK, RECONCILE_TASK)
    jobs = list(getattr(record, "jobs", None) or []) + [getattr(record, "job", None)]
    names = [job.get("task_name") for job in jobs if isinstance(job, dict)]
    if names and all(name in maintenance for name in names):
        return False
    message = record.getMessage()
    return not any(name in message for name in maintenance)


async def database_answers(conninfo_: str) -> bool:
    import psycopg

    try:
        async with await psycopg.AsyncConnection.connect(conninfo_, connect_timeout=5) as conn:
            await conn.execute("SELECT 1")
        return True
    except Exception:
        return False


async def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from procrastinate.worker import Worker

    from app.cluster import registry
    from app.cluster.compile import CompilerPool, cluster_compile_stage
    from app.cluster.gpu_budget import GradeLater
    from app.cluster.jobs import COMPILE_QUEUE, GRADING_QUEUE, MAINTENANCE_QUEUE, Enqueuer, conninfo, make_app
    from app.cluster.reconcile import repair
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import require_head
    from app.submissions import lanes, queue
    from app.submissions.cli import catalog_slugs
    from app.submissions.dispatcher import DATABASE_ERRORS, Dispatcher, Grade
    from app.submissions.runtime import dispatcher_config

    engine = make_engine(settings.resolved_database_url)
    require_head(engine)  # the web side (`serve` / `migrate`) migrates; a worker never does
    session_factory = make_session_factory(engine)
    slugs = catalog_slugs(settings)
    name = args.name or (f"{lanes.HOST}:cpu" if args.no_gpu else f"{lanes.HOST}:gpu{args.gpu}")
    slots = settings.compile_slots if args.compile_slots is None else args.compile_slots
    if args.no_gpu and slots <= 0:
        print("error: nothing to run (--no-gpu with --compile-slots 0)", file=sys.stderr)
        return EXIT_CONFIG
    pool = CompilerPool(slots, settings.data_dir / "cubin-cache")
    enqueuer = Enqueuer(settings.resolved_database_url)

    def dispatcher(lane: str, grade: Grade | None = None) -> Dispatcher:
        config = dispatcher_config(settings, args.gpu)
        config.lane = lane
        config.store_patience_seconds = settings.worker_database_patience_seconds
        made = Dispatcher(session_factory, config, lesson_slugs=slugs, grade=grade)
        made.uses_lanes = False  # the job-queue engine decides who runs what
        dispatchers.append(made)
        return made

    def requeue(ids: list[int]) -> None:
        with session_factory() as db:
            queue.requeue(db, ids)

    def reconcile() -> list[int]:
        with session_factory() as db:
            return repair(db, enqueuer)

    log = logging.getLogger(__name__)
    loop = asyncio.get_running_loop()
    workers: list[Any] = []
    dispatchers: list[Dispatcher] = []  # the GPU one and the compile slots': each bounds its wait on drain
    outcome = {"stopping": False, "rc": 0}
    stop_requested = asyncio.Event()  # wakes the reconnect wait below at once

    def stop_all(rc: int = 0) -> None:
        outcome["stopping"] = True
        outcome["rc"] = outcome["rc"] or rc
        stop_requested.set()
        for made in dispatchers:
            made.drain()
        for worker in workers:
            fail_fast_on_drain(worker.app)
            worker.stop()

    def gpu_lost(reason: str) -> None:  # from the job's thread: the job waits again, this worker leaves
        log.error("worker %s: %s; its job waits for another worker, this one exits", name, reason)
        loop.call_soon_threadsafe(stop_all, EXIT_NO_GPU)

    gpu_dispatcher = dispatcher(name, load_callable(args.grade) if args.grade else pool.grade_on)
    gpu_dispatcher.over_budget = GradeLater(enqueuer)
    stage = cluster_compile_stage(session_factory, [dispatcher(f"{name}:compile") for _ in range(max(1, slots))],
                                  load_callable(args.compile) if args.compile else pool.compile_first,
                                  enqueuer, settings.compile_budget_seconds, settings.compile_slice_seconds)
    context = {"dispatcher": gpu_dispatcher, "compile_stage": stage, "requeue": requeue, "reconcile": reconcile,
               "gpu_lost": gpu_lost, "stalled_seconds": settings.worker_stalled_seconds}
    # The poll is the floor under a lost wake-up: procrastinate clears its "new job" event after every
    # fetch, so a job deferred while a fetch is finding nothing waits for the next poll instead of its
    # notification (seen as one honest compile waiting 5 s behind the old 5 s poll). One cheap indexed
    # query a second per worker keeps that wait under a second.
    common: dict[str, Any] = dict(listen_notify=True, fetch_job_polling_interval=FETCH_POLL_SECONDS, delete_jobs="successful",
                  update_heartbeat_interval=settings.worker_heartbeat_seconds,
                  stalled_worker_timeout=settings.worker_stalled_seconds, additional_context=context,
                  install_signal_handlers=False)

    def on_signal() -> None:
        if outcome["stopping"]:  # a second signal: leave now; the job in hand is retried elsewhere
            os._exit(1)
        log.info("draining: finishing the job in hand, taking no other")
        stop_all()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal)
    # SIGUSR1 writes every thread's stack to the log (the job in hand runs in one), then every asyncio
    # task's (procrastinate's waits are there): why a drain takes long.
    loop.add_signal_handler(signal.SIGUSR1, log_tasks, log)
    faulthandler.register(signal.SIGUSR1, all_threads=True, chain=True)
    log.info("worker %s: GPU %s, %d compile slots (queue: PostgreSQL, procrastinate)", name,
             "none" if args.no_gpu else args.gpu, slots)
    patience = settings.worker_database_patience_seconds
    gpu_index = None if args.no_gpu else args.gpu
    try:
        with session_factory() as db:
            registry.start(db, name, gpu_index, slots)
    except DATABASE_ERRORS:  # a blip right now: the first heartbeat that reaches the database writes the row
        log.warning("worker %s: database unreachable at start; its row is written by the next heartbeat", name)
    beating = asyncio.create_task(keep_beating(session_factory, name, gpu_index, slots,
                                               settings.worker_heartbeat_seconds, log))
    try:
        while True:
            # A fresh pool each round; a connection that cannot be had in 10 s is a database fault (the
            # pool would wait 30 s by default before the reconnect loop below takes over).
            app = make_app(settings.resolved_database_url, min_size=1, max_size=6, timeout=10)
            workers[:] = []
            if not args.no_gpu:  # one timed job at a time on this GPU
                workers.append(Worker(app, queues=[GRADING_QUEUE, MAINTENANCE_QUEUE], concurrency=1, name=name,
                                      **common))
            if slots > 0:  # compiles run in threads; each slot drives its own sandboxed NVRTC process
                workers.append(Worker(app, queues=[COMPILE_QUEUE] + ([MAINTENANCE_QUEUE] if args.no_gpu else []),
                                      concurrency=slots, name=f"{name}:compile", **common))
            if outcome["stopping"]:
                break
            try:
                async with app.open_async():
                    await run_together(workers)
            except Exception as exc:  # the database went away under procrastinate (or never answered)
                log.warning("worker %s: queue connection lost (%s: %s)", name, type(exc).__name__,
                            " ".join(str(exc).split())[:160])
            if outcome["stopping"]:
                break
            # procrastinate stopped on its own: a side task (heartbeat, LISTEN) met a database error.
            if not await wait_for_database(conninfo(settings.resolved_database_url), patience, log, stop_requested):
                if outcome["stopping"]:
                    break
                log.error("worker %s: the database did not answer for %.0f s; exiting for the supervisor to "
                          "restart this worker", name, patience)
                return EXIT_DATABASE
            log.info("worker %s: database reachable again; taking jobs", name)
    finally:
        beating.cancel()
        try:
            with session_factory() as db:
                registry.forget(db, name)
        except Exception:  # the database is gone: the row ages and `queue` shows the worker as stale
            log.warning("worker %s: could not remove its row from grading_worker", name)
        gpu_dispatcher.stop()
        pool.close()
        engine.dispose()
    return int(outcome["rc"])


def log_tasks(log: logging.Logger) -> None:
    """Every asyncio task's stack, to the log (SIGUSR1)."""
    import io

    out = io.StringIO()
    for task in asyncio.all_tasks():
        task.print_stack(limit=10, file=out)
    log.warning("asyncio tasks (SIGUSR1):\n%s", out.getvalue())


def fail_fast_on_drain(app: Any) -> None:
    """Draining: a pooled connection that does not come within ``DRAIN_POOL_SECONDS`` will not come (the
    database is away), so procrastinate's last bookkeeping (the job's status, unregistering each of its
    workers) fails after that instead of after the pool's normal wait each. A job left as running is
    handed to another worker by ``retry_stalled``, as after a kill."""
    import procrastinate
    from procrastinate.exceptions import AppNotOpen

    if isinstance(app.connector, procrastinate.PsycopgConnector):
        with contextlib.suppress(AppNotOpen):
            pool = app.connector.pool
            pool.timeout = min(pool.timeout, DRAIN_POOL_SECONDS)


async def keep_beating(session_factory: sessionmaker[Session], name: str, gpu: int | None, slots: int, every: float,
                       log: logging.Logger) -> None:
    """This worker's row in grading_worker says it is alive (what `queue`, readiness and /metrics read)."""
    from app.cluster import registry

    def beat() -> None:
        with session_factory() as db:
            registry.beat(db, name, gpu, slots)

    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(beat)
        except Exception as exc:  # the database is away; the reconnect loop reports it
            log.debug("worker %s: heartbeat row not written (%s)", name, exc)


async def run_together(workers: list[Any]) -> None:
    """Run the procrastinate workers until all have ended; when one ends (a database error stops
    it), the others are stopped too, so the process reconnects as a whole."""
    tasks = [asyncio.create_task(worker.run()) for worker in workers]
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for worker in workers:
        worker.stop()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


async def wait_for_database(conninfo_: str, patience: float, log: logging.Logger, stopping: asyncio.Event) -> bool:
    """True once the database answers; False after ``patience`` seconds, or as soon as ``stopping`` is set
    (a drain never waits out the backoff)."""
    started, delay = time.monotonic(), 0.5
    while not stopping.is_set():
        if await database_answers(conninfo_):
            return True
        if time.monotonic() - started >= patience:
            return False
        log.warning("database unreachable; trying again in %.1f s", delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), delay)
        delay = min(delay * 2, 15.0)
    return False
