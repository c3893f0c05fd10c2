"""Rate limits that hold under concurrency, across server processes and restarts: slots in the database.

A limit of ``limit`` actions per ``window`` seconds is a bucket of ``limit`` rows (table ``rate_slot``).
An action takes a free slot (``free_at <= now``) and marks it taken until ``now + window``; with no
free slot it is refused, and the earliest ``free_at`` says when to retry. This is an exact sliding
window (at most ``limit`` actions in any ``window`` seconds) whose store is bounded by ``limit`` rows.

Why it is atomic (a check-then-insert once let 18 of 20 parallel comments past a limit of 5, and
100 parallel wrong sign-ins past a lockout of 8 were all checked):
- PostgreSQL: the free slot is selected ``FOR UPDATE SKIP LOCKED``, so two transactions never take the
  same slot (a slot another one is taking is skipped, and the row is re-checked after a commit);
- SQLite: the first statement of ``take`` is a write (the ``INSERT .. ON CONFLICT DO NOTHING`` of slot 0),
  so the transaction holds SQLite's single write lock before it looks for a free slot.
Taking a slot is done in the caller's transaction: it counts only if that transaction commits.

No maintained limiter library fits: ``limits`` (the one behind slowapi) keeps counters in memory,
Redis, Memcached, MongoDB or etcd, and the one-box deployment has no service beside the database;
so this is hand-written, ~100 lines, on the database every deployment already has.

Limits in use: sign-in failures per (IP, username) and per IP, sign-ups per IP (AccountsConfig,
app/accounts/auth.py, from the settings MKC_SIGNIN_USER_LIMIT, MKC_SIGNIN_IP_LIMIT, MKC_SIGNUP_LIMIT as
"attempts/seconds"); comments, comment reports and problem reports (CommentsConfig, app/comments/limits.py). The IP is the
client address as app/core/proxies.py decides it (forwarded headers only from trusted proxies).
"""
from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import delete, func, select, tuple_, update
from sqlalchemy.orm import Session

from app.accounts.models import RateSlot

PRUNE_EVERY = 500  # takes between two sweeps of long-free slots (per process)
_takes = 0


@dataclass(frozen=True)
class Rate:
    limit: int  # actions ...
    window: float  # ... per this many seconds

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``"attempts/seconds"`` (e.g. ``"20/3600"``, as the settings give it; ValueError otherwise)."""
        attempts, _, seconds = text.partition("/")
        return cls(max(1, int(attempts)), max(1.0, float(seconds)))

    @classmethod
    def parse_all(cls, text: str) -> list[Rate]:
        """Several limits that all apply: ``"5/60,30/3600"``."""
        return [cls.parse(part) for part in text.split(",")]


@dataclass
class Claim:
    wait: int = 0  # whole seconds until the action could be allowed; 0 when it was
    held: list[tuple[str, int, float]] = field(default_factory=list)  # (bucket, slot, previous free_at)

    @property
    def allowed(self) -> bool:
        return self.wait == 0


def bucket_key(name: str, subject: str, window: float) -> str:
    """Subjects (IPs, usernames) are stored hashed."""
    return hashlib.sha256(f"{name}\x1f{subject}\x1f{window:g}".encode("utf-8", "replace")).hexdigest()


def _insert_ignore(db: Session, key: str, slot: int) -> None:
    if db.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]  # same API, its own class
    db.execute(insert(RateSlot).values(bucket=key, slot=slot, free_at=0.0).on_conflict_do_nothing())


def _take_one(db: Session, key: str, rate: Rate, now: float) -> tuple[int, float] | float:
    """(slot, previous free_at) when a slot was taken, else seconds until one frees."""
    _insert_ignore(db, key, 0)  # first statement a write: SQLite's write lock before any read
    in_bucket = (RateSlot.bucket == key, RateSlot.slot < rate.limit)
    for _ in range(rate.limit + 1):
        row = db.execute(select(RateSlot.slot, RateSlot.free_at).where(*in_bucket, RateSlot.free_at <= now)
                         .order_by(RateSlot.slot).limit(1).with_for_update(skip_locked=True)).first()
        if row is not None:
            db.execute(update(RateSlot).where(RateSlot.bucket == key, RateSlot.slot == row.slot)
                       .values(free_at=now + rate.window))
            return row.slot, row.free_at
        slots = list(db.scalars(select(RateSlot.slot).where(*in_bucket).order_by(RateSlot.slot)))
        if len(slots) >= rate.limit:
            break
        missing = next(i for i, s in enumerate(slots + [rate.limit]) if i != s)  # the first gap
        _insert_ignore(db, key, missing)
    soonest = db.scalar(select(func.min(RateSlot.free_at)).where(*in_bucket))
    return max(1.0, (soonest or now) - now)  # a slot being taken right now (locked) frees at once or never


def take(db: Session, limits: Sequence[tuple[str, str, Rate]], now: float | None = None) -> Claim:
    """Take one slot of every (name, subject, rate), or none: a refused action uses up nothing."""
    global _takes
    now = time.time() if now is None else now
    _takes += 1
    if _takes % PRUNE_EVERY == 0:
        prune(db, now)
    claim, wait = Claim(), 0.0
    for name, subject, rate in limits:
        key = bucket_key(name, subject, rate.window)
        got = _take_one(db, key, rate, now)
        if isinstance(got, tuple):
            claim.held.append((key, *got))
        else:
            wait = max(wait, got)
    if wait:
        give_back(db, claim)
        return Claim(wait=max(1, math.ceil(wait)))
    return claim


def give_back(db: Session, claim: Claim) -> None:
    """Undo a claim (the action it allowed did not happen, or must not count)."""
    for key, slot, previous in claim.held:
        db.execute(update(RateSlot).where(RateSlot.bucket == key, RateSlot.slot == slot).values(free_at=previous))
    claim.held = []


def forget(db: Session, name: str, subject: str, rates: Sequence[Rate]) -> None:
    """Free every slot of these buckets (a successful sign-in clears its failures)."""
    keys = [bucket_key(name, subject, rate.window) for rate in rates]
    db.execute(update(RateSlot).where(RateSlot.bucket.in_(keys)).values(free_at=0.0))


def prune(db: Session, now: float) -> None:
    """Delete free slots (a later take re-creates them); rows other transactions hold are skipped."""
    stale = (select(RateSlot.bucket, RateSlot.slot).where(RateSlot.free_at <= now).limit(1000)
             .with_for_update(skip_locked=True))
    db.execute(delete(RateSlot).where(tuple_(RateSlot.bucket, RateSlot.slot).in_(stale)))
