"""``grading_worker``: the cluster's worker processes as an operator names them.

procrastinate keeps its own worker rows (an id and a heartbeat); this table adds what an operator
needs to read them: the ``--name`` a worker was started with, its GPU (NULL for compile only),
host and pid, and when it last said it was alive. A worker writes its row at start and then with
every heartbeat and deletes it when it drains; a row whose ``last_seen`` is older than
``worker_stalled_seconds`` belongs to a worker that died (``python -m app queue`` warns about it).
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.clock import utcnow
from app.core.db import Base


class GradingWorker(Base):
    __tablename__ = "grading_worker"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)  # e.g. "gpuhost3:gpu1"
    gpu: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: compile slots only
    host: Mapped[str] = mapped_column(String(100), default="")
    pid: Mapped[int] = mapped_column(Integer, default=0)
    compile_slots: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_seen: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
