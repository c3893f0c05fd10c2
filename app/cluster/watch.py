"""``python -m app queue``: what the grading queue is doing, in both deployments.

From the submission rows (one box and cluster alike): jobs waiting for a GPU and the oldest wait,
compile-only results waiting for a GPU, and per lane (GPU) the job it runs now and for how long.
In cluster mode also procrastinate's side: jobs per queue and status, jobs waiting for a learner's
compile budget, and the workers with the age of their last heartbeat.

``--json`` prints the same as one JSON object; ``--watch N`` repeats every N seconds.
Draining a worker is a signal, not a command: SIGTERM (``kill -TERM <pid>``, ``systemctl stop``) makes
it finish the job in hand and take no other; this view shows its lane empty once it is done.
"""
from __future__ import annotations

import argparse
import json
import sys
import time


def add_parser(sub) -> None:
    p = sub.add_parser("queue", help="grading queue: waiting jobs, oldest wait, running per GPU, workers")
    p.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    p.add_argument("--watch", type=float, default=0, metavar="SECONDS", help="repeat every SECONDS (Ctrl-C stops)")
    p.set_defaults(func=run)


def snapshot(engine) -> dict:
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
        view = {
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
            view["workers"] = [{"id": w, "heartbeat_age_s": round(float(age), 1)} for w, age in conn.execute(text(
                "SELECT id, EXTRACT(EPOCH FROM now() - last_heartbeat) FROM procrastinate_workers ORDER BY id")).all()]
    return view


def _has_procrastinate(conn) -> bool:
    from sqlalchemy import inspect

    return inspect(conn).has_table("procrastinate_jobs")


def render(view: dict) -> str:
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
        beats = ", ".join(f"#{w['id']} {w['heartbeat_age_s']:.0f} s ago" for w in view["workers"]) or "none"
        lines.append(f"workers (last heartbeat): {beats}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from app.core.config import Settings
    from app.core.db import make_engine

    engine = make_engine(Settings().resolved_database_url)
    try:
        while True:
            view = snapshot(engine)
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
