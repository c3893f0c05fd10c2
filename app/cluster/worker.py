"""``python -m app worker --gpu N``: one grading worker bound to one GPU, on any host that reaches
the PostgreSQL database (cluster mode, ``MKC_QUEUE=procrastinate``).

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
  signal aborts it (it is then retried elsewhere).
"""
from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import signal
import sys
from collections.abc import Callable


def add_parser(sub) -> None:
    p = sub.add_parser("worker", help="cluster mode: one grading worker bound to one GPU (needs PostgreSQL)")
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


def load_callable(path: str) -> Callable:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def run(args: argparse.Namespace) -> int:
    # Before anything imports CUDA or probes for a GPU: this process and its sandboxed GPU workers
    # see only device N.
    os.environ["CUDA_VISIBLE_DEVICES"] = str(args.gpu)

    from app.cluster.jobs import ClusterConfigError, conninfo
    from app.core.config import Settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings()
    try:
        conninfo(settings.resolved_database_url)
    except ClusterConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return asyncio.run(_serve(args, settings))


async def _serve(args: argparse.Namespace, settings) -> int:
    from procrastinate.worker import Worker

    from app.cluster.compile import CompilerPool, CompileStage
    from app.cluster.gpu_budget import GradeLater
    from app.cluster.jobs import COMPILE_QUEUE, GRADING_QUEUE, MAINTENANCE_QUEUE, Enqueuer, make_app
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import require_head
    from app.submissions import lanes, queue
    from app.submissions.cli import catalog_slugs
    from app.submissions.dispatcher import Dispatcher
    from app.submissions.runtime import dispatcher_config

    engine = make_engine(settings.resolved_database_url)
    require_head(engine)  # the web side (`serve` / `migrate`) migrates; a worker never does
    session_factory = make_session_factory(engine)
    slugs = catalog_slugs(settings)
    name = args.name or (f"{lanes.HOST}:cpu" if args.no_gpu else f"{lanes.HOST}:gpu{args.gpu}")
    slots = settings.compile_slots if args.compile_slots is None else args.compile_slots
    pool = CompilerPool(slots, settings.data_dir / "cubin-cache")

    def dispatcher(lane: str, grade=None) -> Dispatcher:
        config = dispatcher_config(settings, args.gpu)
        config.lane = lane
        made = Dispatcher(session_factory, config, lesson_slugs=slugs, grade=grade)
        made.uses_lanes = False  # the job-queue engine decides who runs what
        return made

    def requeue(ids: list[int]) -> None:
        with session_factory() as db:
            queue.requeue(db, ids)

    def engine_grade(exercise_id, source, launch, on_phase):
        from kernels.engine import grade

        return grade(exercise_id, source, launch, on_phase=on_phase, compiler=pool.gpu_compiler())

    gpu_dispatcher = dispatcher(name, load_callable(args.grade) if args.grade else engine_grade)
    gpu_dispatcher.over_budget = GradeLater(Enqueuer(settings.resolved_database_url))
    stage = CompileStage(session_factory, [dispatcher(f"{name}:compile") for _ in range(max(1, slots))],
                         load_callable(args.compile) if args.compile else pool.compile_first,
                         Enqueuer(settings.resolved_database_url), settings.compile_budget_seconds)
    context = {"dispatcher": gpu_dispatcher, "compile_stage": stage, "requeue": requeue,
               "stalled_seconds": settings.worker_stalled_seconds}
    common = dict(listen_notify=True, fetch_job_polling_interval=5.0, delete_jobs="successful",
                  update_heartbeat_interval=settings.worker_heartbeat_seconds,
                  stalled_worker_timeout=settings.worker_stalled_seconds, additional_context=context,
                  install_signal_handlers=False)
    app = make_app(settings.resolved_database_url, min_size=1, max_size=6)
    log = logging.getLogger(__name__)
    async with app.open_async():
        workers = []
        if not args.no_gpu:  # one timed job at a time on this GPU
            workers.append(Worker(app, queues=[GRADING_QUEUE, MAINTENANCE_QUEUE], concurrency=1, name=name, **common))
        if slots > 0:  # compiles run in threads; each slot drives its own sandboxed NVRTC process
            workers.append(Worker(app, queues=[COMPILE_QUEUE] + ([MAINTENANCE_QUEUE] if args.no_gpu else []),
                                  concurrency=slots, name=f"{name}:compile", **common))
        if not workers:
            print("error: nothing to run (--no-gpu with --compile-slots 0)", file=sys.stderr)
            return 2
        loop = asyncio.get_running_loop()
        stopping: list[bool] = []

        def on_signal() -> None:
            if stopping:  # a second signal: leave now; the job in hand is retried elsewhere
                os._exit(1)
            stopping.append(True)
            log.info("draining: finishing the job in hand, taking no other")
            for worker in workers:
                worker.stop()

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, on_signal)
        log.info("worker %s: GPU %s, %d compile slots (queue: PostgreSQL, procrastinate)", name,
                 "none" if args.no_gpu else args.gpu, slots)
        try:
            await asyncio.gather(*(worker.run() for worker in workers))
        finally:
            gpu_dispatcher.stop()
            pool.close()
            engine.dispose()
    return 0
