"""Each cluster worker's row in ``grading_worker`` (app/cluster/models.py): written at start and with
every heartbeat, deleted when the worker drains. Readers: ``python -m app queue``, the readiness
check and /metrics."""
from __future__ import annotations

import os
from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app.cluster.models import GradingWorker
from app.core.clock import utcnow
from app.submissions import lanes
from app.submissions.queue import changed


def beat(db: Session, name: str, gpu: int | None, compile_slots: int) -> None:
    """This worker is alive now (its row is made again if someone deleted it)."""
    now = utcnow()
    if changed(db, update(GradingWorker).where(GradingWorker.name == name).values(
            last_seen=now, gpu=gpu, host=lanes.HOST, pid=os.getpid(), compile_slots=compile_slots)) == 0:
        db.add(GradingWorker(name=name, gpu=gpu, host=lanes.HOST, pid=os.getpid(), compile_slots=compile_slots,
                             started_at=now, last_seen=now))
    db.commit()


def start(db: Session, name: str, gpu: int | None, compile_slots: int) -> None:
    db.execute(delete(GradingWorker).where(GradingWorker.name == name))  # a restart under the same name
    db.commit()
    beat(db, name, gpu, compile_slots)


def forget(db: Session, name: str) -> None:
    db.execute(delete(GradingWorker).where(GradingWorker.name == name))
    db.commit()


@dataclass(frozen=True)
class WorkerView:
    name: str
    gpu: int | None
    host: str
    pid: int
    compile_slots: int
    last_seen_age_s: float
    live: bool


def workers(db: Session, stalled_seconds: float) -> list[WorkerView]:
    """Every registered worker, with the age of its last heartbeat; ``live`` when younger than
    ``stalled_seconds`` (the age after which the cluster hands a worker's job to another)."""
    now = utcnow()
    out = []
    for w in db.scalars(select(GradingWorker).order_by(GradingWorker.gpu, GradingWorker.name)):
        age = max(0.0, (now - w.last_seen).total_seconds())
        out.append(WorkerView(w.name, w.gpu, w.host, w.pid, w.compile_slots, round(age, 1), age < stalled_seconds))
    db.rollback()
    return out


def live_per_gpu(views: list[WorkerView]) -> dict[str, list[str]]:
    """GPU index (as text, JSON's keys) -> names of its live workers; compile-only workers under "cpu"."""
    out: dict[str, list[str]] = {}
    for w in views:
        if w.live:
            out.setdefault("cpu" if w.gpu is None else str(w.gpu), []).append(w.name)
    return out

