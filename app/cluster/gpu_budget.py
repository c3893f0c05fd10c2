"""Cluster mode's answer to a learner over their hourly GPU budget (app/submissions/gpu_budget.py):
the grading job the GPU worker could not claim goes back to the ``grading`` queue, scheduled for when
the budget frees, so the worker takes other learners' jobs meanwhile."""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy.orm import Session

from app.cluster.jobs import GRADE_TASK, Enqueuer


class GradeLater:
    """``Dispatcher.over_budget`` for a cluster worker: defers the grading job to ``until``."""

    def __init__(self, enqueuer: Enqueuer):
        self.enqueuer = enqueuer

    def __call__(self, db: Session, row: Any, until: dt.datetime) -> None:
        # stored times are naive UTC; procrastinate wants an aware one
        self.enqueuer(db, row, task=GRADE_TASK, schedule_at=until.replace(tzinfo=dt.UTC))
