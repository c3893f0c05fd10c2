"""``python -m app queue``: what the grading queue is doing, in both deployments.

From the submission rows (one box and cluster alike): jobs waiting for a GPU and the oldest wait,
compile-only results waiting for a GPU, and per lane (GPU) the job it runs now and for how long.
In cluster mode also procrastinate's side: jobs per queue and status, jobs waiting for a learner's
compile budget, and the workers by name (``--name``) with their GPU and the age of their last
heartbeat. Warnings (also in ``--json`` as ``warnings``): no live GPU worker while jobs wait,
stale workers (no heartbeat for ``worker_stalled_seconds``), and stranded rows (waiting without
a job; the workers' periodic reconciliation repairs them, app/cluster/reconcile.py).

``--json`` prints the same as one JSON object; ``--watch N`` repeats every N seconds.
Draining a worker is a signal, not a command: SIGTERM (``kill -TERM <pid>``, ``systemctl stop``) makes
it finish the job in hand and take no other; this view shows its lane empty once it is done.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("queue", help="grading queue: waiting jobs, oldest wait, running per GPU, workers")
    p.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    p.add_argument("--watch", type=float, default=0, metavar="SECONDS", help="repeat every SECONDS (Ctrl-C stops)")
    p.add_argument("--forget", metavar="NAME", help="remove a dead worker's row (a GPU host that is gone for good)")
    p.set_defaults(func=run)


def snapshot(engine: Engine, stalled_seconds: float = 30.0) -> dict[str, Any]:
    from sqlalchemy import func, select, text

    from app.core.clock import utcnow
    from app.submissions import states
    from app.submissions.models import Submission

    now = utcnow()
    with engine.connect() as conn:
        queued, oldest = conn.execute(select(func.count(), func.min(Submission.created_at))
                                      .where(Submission.state == states.QUEUED)).one()
        awaiting = conn.execute(select(func.count()).where(Submission.state == states.AWAITING_GPU)).scalar()
        running = conn.execute(select(Submission.lane, Submission.id, Submission.state, Submission.user_id,
                                      Submission.claimed_at, Submission.lease_expires_at)
                               .where(Submission.state.in_(states.RUNNING)).order_by(Submission.lane)).all()
        view: dict[str, Any] = {
            "mode": "cluster" if engine.dialect.name == "postgresql" and _has_procrastinate(conn) else "one box",
            "queued": queued, "awaiting_gpu": awaiting,
            "oldest_wait_s": round((now - oldest).total_seconds(), 1) if oldest else None,
            "running": [{"lane": r.lane, "submission": r.id, "state": r.state, "learner": r.user_id,
                         "for_s": round((now - r.claimed_at).total_seconds(), 1) if r.claimed_at else None,
                         "lease_left_s": round((r.lease_expires_at - now).total_seconds(), 1)
                         if r.lease_expires_at else None} for r in running],
        }
        if view["mode"] == "cluster":
            jobs = conn.execute(text("SELECT queue_name, status, COUNT(*) FROM procrastinate_jobs "
                                     "WHERE status IN ('todo', 'doing') GROUP BY queue_name, status")).all()
            view["jobs"] = {f"{q}/{s}": n for q, s, n in jobs}
            view["waiting_for_budget"] = conn.execute(text(
                "SELECT COUNT(*) FROM procrastinate_jobs WHERE status = 'todo' AND scheduled_at > now()")).scalar()
            view.update(_cluster_health(conn, stalled_seconds, waiting=bool(queued or awaiting)))
    return view


def _cluster_health(conn: Connection, stalled_seconds: float, *, waiting: bool) -> dict[str, Any]:
    from sqlalchemy.orm import Session

    from app.cluster import reconcile, registry

    with Session(bind=conn) as db:
        workers = registry.workers(db, stalled_seconds)
        stranded = reconcile.stranded(db)
    out: dict[str, Any] = {"workers": [{"name": w.name, "gpu": w.gpu, "host": w.host, "pid": w.pid,
                              "heartbeat_age_s": w.last_seen_age_s, "live": w.live} for w in workers],
                 "stranded": [sub_id for sub_id, _ in stranded], "warnings": []}
    if not any(w.live and w.gpu is not None for w in workers):
        out["warnings"].append("no live GPU worker" + (": jobs wait for one" if waiting else ""))
    for w in workers:
        if not w.live:
            out["warnings"].append(f"stale worker {w.name} (pid {w.pid} on {w.host}): no heartbeat for "
                                   f"{w.last_seen_age_s:.0f} s")
    if stranded:
        out["warnings"].append(f"{len(stranded)} row(s) wait without a job (repaired within a minute by a live "
                               f"worker): {', '.join(str(i) for i, _ in stranded[:10])}")
    return out


def _has_procrastinate(conn: Connection) -> bool:
    from sqlalchemy import inspect

    return bool(inspect(conn).has_table("procrastinate_jobs"))


def render(view: dict[str, Any]) -> str:
    oldest = "-" if view["oldest_wait_s"] is None else f"{view['oldest_wait_s']:.1f} s"
    lines = [f"mode: {view['mode']}",
             f"queued: {view['queued']}   oldest wait: {oldest}   awaiting a GPU: {view['awaiting_gpu']}"]
    lines.append("running:" if view["running"] else "running: none")
    for r in view["running"]:
        lines.append(f"  {r['lane'] or '?':<28} submission {r['submission']:<8} {r['state']:<10} learner {r['learner']:<6}"
                     f" for {r['for_s'] if r['for_s'] is not None else '-'} s")
    if view["mode"] == "cluster":
        jobs = "  ".join(f"{k}={v}" for k, v in sorted(view["jobs"].items())) or "none"
        lines.append(f"jobs: {jobs}   waiting for a compile budget: {view['waiting_for_budget']}")
        lines.append("workers:" if view["workers"] else "workers: none")
        for w in view["workers"]:
            gpu = "compile only" if w["gpu"] is None else f"GPU {w['gpu']}"
            lines.append(f"  {w['name']:<28} {gpu:<13} {w['host']}:{w['pid']:<8} last heartbeat "
                         f"{w['heartbeat_age_s']:.0f} s ago{'' if w['live'] else '  STALE'}")
        lines += [f"WARNING: {warning}" for warning in view["warnings"]]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from app.core.config import Settings
    from app.core.db import make_engine

    settings = Settings()
    engine = make_engine(settings.resolved_database_url)
    if args.forget:
        from sqlalchemy.orm import Session

        from app.cluster import registry

        with Session(engine) as db:
            registry.forget(db, args.forget)
        print(f"forgot worker {args.forget}")
    try:
        while True:
            view = snapshot(engine, settings.worker_stalled_seconds)
            print(json.dumps(view) if args.json else render(view), flush=True)
            if not args.watch:
                return 0
            time.sleep(args.watch)
            if not args.json:
                print(file=sys.stdout)
    except KeyboardInterrupt:
        return 0
    finally:
        engine.dispose()
