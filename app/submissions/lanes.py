"""One dispatcher per GPU: each GPU is a *lane*, and only the holder of a lane's lease runs jobs
on it. Every server process (uvicorn worker) may start a dispatcher; the others stand by and take
over when the holder stops renewing (crash, kill -9) or when it is provably dead.

Owners are named ``host:pid:nonce``. A lease normally runs out after ``lease_seconds``; on the
same host a holder whose pid no longer exists is dead at once, so a restarted server does not
wait a whole lease before it picks up the jobs its predecessor left behind.
"""
from __future__ import annotations

import datetime as dt
import logging
import os
import secrets
import socket

from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.core.clock import utcnow
from app.submissions.models import DispatcherLane
from app.submissions.queue import changed

HOST = socket.gethostname()[:60]
log = logging.getLogger(__name__)


def new_owner_id() -> str:
    return f"{HOST}:{os.getpid()}:{secrets.token_hex(4)}"


# The binding this module set, so that a later bind (a second app in one process, a test) can tell
# its own binding from an operator's.
_bound_here: str | None = None


def bind_gpu(index: int, *, explicit: bool) -> str:
    """Bind this process, and the sandboxed GPU workers it starts, to GPU ``index``: the engine passes
    CUDA_VISIBLE_DEVICES into each worker, where the card is device 0. Call it before anything asks for
    a GPU. ``explicit`` (``worker --gpu N``, ``dispatcher --gpu-index N``) always binds; the
    ``MKC_DISPATCHER_GPU_INDEX`` setting binds unless the operator started the process with
    CUDA_VISIBLE_DEVICES set (even empty: no GPU), which then wins. Returns the binding now in force,
    for the lane's name. Unbound, a worker on a host with several GPUs sees all of them and starts
    slower (on four H100s: cuInit 0.89 s instead of 0.19 s in the driver bench)."""
    global _bound_here
    current = os.environ.get("CUDA_VISIBLE_DEVICES")
    if explicit or current is None or current == _bound_here:
        current = _bound_here = os.environ["CUDA_VISIBLE_DEVICES"] = str(index)
    elif current.strip() != str(index):
        log.warning("CUDA_VISIBLE_DEVICES=%r from the environment wins over MKC_DISPATCHER_GPU_INDEX=%d", current, index)
    return current


def lane_index(bound: str, index: int) -> int:
    """The GPU number a lane is named after: the bound card when it is one number, else ``index``."""
    return int(bound) if bound.strip().isdigit() else index


def default_lane(gpu: bool, gpu_index: int) -> str:
    return f"{HOST}:gpu{gpu_index}" if gpu else f"{HOST}:cpu"


def owner_is_dead(owner: str | None) -> bool:
    """True only when we can tell for sure: same host, another pid, and that pid is gone."""
    if not owner:
        return True
    parts = owner.split(":")
    try:
        pid = int(parts[-2])
    except (ValueError, IndexError):
        return False
    host = ":".join(parts[:-2])
    if host != HOST or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # exists, someone else's
        return False
    return False


def acquire(db: Session, lane: str, me: str, lease_seconds: float) -> tuple[bool, str | None]:
    """Take or renew the lane. Returns (held, previous_owner) — previous_owner is set on a takeover."""
    now = utcnow()
    previous = db.get(DispatcherLane, lane, populate_existing=True)
    if previous is None:  # first use of this lane: create its row (a racing creator may win)
        db.add(DispatcherLane(name=lane))
        try:
            db.commit()
        except IntegrityError:
            db.rollback()
        previous = db.get(DispatcherLane, lane, populate_existing=True)
    before = previous.owner if previous else None
    expires = now + dt.timedelta(seconds=lease_seconds)
    claim = update(DispatcherLane).where(
        DispatcherLane.name == lane,
        or_(DispatcherLane.owner.is_(None), DispatcherLane.owner == me, DispatcherLane.expires_at < now),
    ).values(owner=me, expires_at=expires, heartbeat_at=now)
    held = changed(db, claim) == 1
    if not held and before and owner_is_dead(before):
        held = changed(db, update(DispatcherLane).where(DispatcherLane.name == lane, DispatcherLane.owner == before)
                          .values(owner=me, expires_at=expires, heartbeat_at=now)) == 1
    db.commit()
    return held, (before if held and before != me else None)


def release(db: Session, lane: str, me: str) -> None:
    db.execute(update(DispatcherLane).where(DispatcherLane.name == lane, DispatcherLane.owner == me)
               .values(owner=None, expires_at=None))
    db.commit()
