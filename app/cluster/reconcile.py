"""Rows that say they wait but that no job will ever pick up get a job again (cluster mode).

In cluster mode a submission reaches a worker only through its procrastinate job. Every path that
puts a row in a waiting state defers the job in the same transaction, so a row without a job is a
fault (a job failed or deleted by hand, an older release, a database restored from a backup taken
between two writes). ``repair`` finds rows in a waiting or running state with no job waiting or
running for them (or only a job in a final state), puts them back to ``queued`` and defers a
compile job for each in the same transaction, logging each one. The periodic ``reconcile`` task
runs it; ``python -m app queue`` counts such rows as "stranded".
"""
from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import text, update
from sqlalchemy.orm import Session

from app.core.clock import utcnow
from app.submissions import states
from app.submissions.models import Submission
from app.submissions.queue import changed

log = logging.getLogger(__name__)
# A row must have looked stranded this long: a transaction that stores a row and its job is never
# seen half-done, but a row someone restores by hand gets a moment to get its job first.
GRACE_SECONDS = 30.0
WAITING = (states.QUEUED, *states.RUNNING, states.AWAITING_GPU)

STRANDED_SQL = """
SELECT s.id, s.state FROM submission s
WHERE s.state IN :waiting AND s.updated_at < :before
  AND NOT EXISTS (SELECT 1 FROM procrastinate_jobs j
                  WHERE j.queueing_lock = 'submission:' || s.id::text AND j.status IN ('todo', 'doing'))
ORDER BY s.id
"""


def stranded(db: Session, grace_seconds: float = GRACE_SECONDS) -> list[tuple[int, str]]:
    """(id, state) of rows that wait without a job."""
    from sqlalchemy import bindparam

    query = text(STRANDED_SQL).bindparams(bindparam("waiting", expanding=True))
    before = utcnow() - dt.timedelta(seconds=grace_seconds)
    return [(int(i), str(s)) for i, s in db.execute(query, {"waiting": list(WAITING), "before": before}).all()]


def repair(db: Session, enqueue: Callable[..., Any], grace_seconds: float = GRACE_SECONDS) -> list[int]:
    """Give every stranded row a compile job again (one transaction per row); returns their ids."""
    repaired = []
    for sub_id, state in stranded(db, grace_seconds):
        db.rollback()
        # compare-and-set: a worker that took the row meanwhile keeps it
        moved = changed(db, update(Submission).where(Submission.id == sub_id, Submission.state == state)
                           .values(state=states.QUEUED, lease_owner=None, lease_expires_at=None,
                                   updated_at=utcnow()))
        row = db.get(Submission, sub_id, populate_existing=True) if moved == 1 else None
        if row is None:
            db.rollback()
            continue
        enqueue(db, row)
        db.commit()
        log.warning("submission %s was %s without a job; it waits in the queue again", sub_id, state)
        repaired.append(sub_id)
    db.rollback()
    return repaired
