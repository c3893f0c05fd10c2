"""``python -m app worker --gpu N``: one grading worker bound to one GPU, on any host that reaches
the PostgreSQL database (cluster mode, ``MKC_QUEUE=procrastinate``).

- Binding: ``CUDA_VISIBLE_DEVICES=N`` is set in this process before anything asks for a GPU; the
  engine passes it into its sandboxed GPU workers, so the job runs on device N (seen there as 0).
- One job at a time: a procrastinate worker with concurrency 1 listening to the ``grading`` and
  ``maintenance`` queues. The job runs ``Dispatcher.run_claimed``: the same claim -> grade ->
  finish -> record steps as the one-box dispatcher.
- Liveness: procrastinate's heartbeat every ``worker_heartbeat_seconds``; a worker silent for
  ``worker_stalled_seconds`` is dead and its job goes to another worker (``retry_stalled``).
- Draining: SIGTERM (or Ctrl-C) stops taking jobs, finishes the one in hand, then exits; a second
  signal aborts it (it is then retried elsewhere).
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from typing import Callable


def add_parser(sub) -> None:
    p = sub.add_parser("worker", help="cluster mode: one grading worker bound to one GPU (needs PostgreSQL)")
    p.add_argument("--gpu", type=int, default=0, help="CUDA device index this worker owns (default 0)")
    p.add_argument("--name", default=None, help="worker name shown by `queue` (default: <host>:gpu<N>)")
    p.add_argument("--burst", action="store_true", help="exit once the queue is empty (benchmarks, tests)")
    p.add_argument("--grade", default=None, metavar="MODULE:FUNCTION",
                   help="grade() replacement, e.g. app.bench.fake_gpu:grade (benchmarks and tests without a GPU)")
    p.set_defaults(func=run)


def load_callable(path: str) -> Callable:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def run(args: argparse.Namespace) -> int:
    # Before anything imports CUDA or probes for a GPU: this process and its sandboxed GPU workers
    # see only device N.
    os.environ["CUDA_VISIBLE_DEVICES"] = str(args.gpu)

    from app.cluster.jobs import GRADING_QUEUE, MAINTENANCE_QUEUE, ClusterConfigError, conninfo, make_app
    from app.core.config import Settings
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import require_head
    from app.submissions import lanes, queue
    from app.submissions.cli import catalog_slugs
    from app.submissions.dispatcher import Dispatcher
    from app.submissions.runtime import dispatcher_config

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings()
    try:
        conninfo(settings.resolved_database_url)
    except ClusterConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    engine = make_engine(settings.resolved_database_url)
    require_head(engine)  # the web side (`serve` / `migrate`) migrates; a worker never does
    session_factory = make_session_factory(engine)
    config = dispatcher_config(settings, args.gpu)
    config.lane = args.name or f"{lanes.HOST}:gpu{args.gpu}"
    dispatcher = Dispatcher(session_factory, config, lesson_slugs=catalog_slugs(settings),
                            grade=load_callable(args.grade) if args.grade else None)
    dispatcher.uses_lanes = False  # the job-queue engine decides who runs what

    def requeue(ids: list[int]) -> None:
        with session_factory() as db:
            queue.requeue(db, ids)

    app = make_app(settings.resolved_database_url, min_size=1, max_size=4)
    logging.getLogger(__name__).info("worker %s on GPU %s (queue: PostgreSQL, procrastinate)", config.lane, args.gpu)
    try:
        app.run_worker(
            queues=[GRADING_QUEUE, MAINTENANCE_QUEUE], concurrency=1, name=config.lane, wait=not args.burst,
            listen_notify=True, fetch_job_polling_interval=5.0, delete_jobs="successful",
            update_heartbeat_interval=settings.worker_heartbeat_seconds,
            stalled_worker_timeout=settings.worker_stalled_seconds,
            additional_context={"dispatcher": dispatcher, "requeue": requeue,
                                "stalled_seconds": settings.worker_stalled_seconds},
        )
    finally:
        dispatcher.stop()
        engine.dispose()
    return 0
