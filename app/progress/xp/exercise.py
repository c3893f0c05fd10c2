"""What the ledger pays a learner for one exercise, and the one compensating entry that brings it
to what the effective verdicts are worth: after a grader's override
(app.graders.reviews) and after a new grading of an exercise a grader overrode before
(app.submissions.reviews.rebalance_after_grading).

The rule per exercise (``exercise_xp_target``): the pass XP if any of the
learner's submissions for it has the effective verdict PASSED, plus each speed tier met by such a
submission whose engine Result says it was met. What is paid now counts the pass and tier deeds and
the override adjustments of the learner's submissions for the exercise, which the caller names.
Callers hold the learner's lock (``lock_learner``) while they compare and pay.
"""
from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.progress import events as ev
from app.progress import verdicts
from app.progress.models import XpEntry
from app.progress.xp import ledger
from app.progress.xp.rules import deeds, exercise_xp_from_specs


def override_reference(sub_id: int, what: int | str) -> str:
    """The ledger reference of a compensating entry for submission ``sub_id``: ``what`` is the
    override's audit entry id, or "regrade" for a re-balance after a new grading."""
    return f"submission:{sub_id}:override:{what}"


def _override_entries(db: Session, user: User, sub_ids: set[int]) -> Iterator[int]:
    """The live override adjustments of these submissions (their ids are in the reference)."""
    for source_id, amount in db.execute(select(XpEntry.source_id, XpEntry.amount).where(
            XpEntry.user_id == user.id, XpEntry.epoch == user.progress_epoch, XpEntry.voided.is_(False),
            XpEntry.source == "adjustment", XpEntry.source_id.like("submission:%:override:%"))):
        sub = source_id.split(":")[1]
        if sub.isdigit() and int(sub) in sub_ids:
            yield amount


def exercise_xp_now(db: Session, user: User, exercise_id: str, sub_ids: set[int]) -> int:
    """What the ledger pays this learner for this exercise now: pass, tiers and override entries."""
    live = (XpEntry.user_id == user.id, XpEntry.epoch == user.progress_epoch, XpEntry.voided.is_(False))
    paid = db.scalar(select(func.coalesce(func.sum(XpEntry.amount), 0)).where(
        *live, ((XpEntry.source == "exercise_pass") & (XpEntry.source_id == exercise_id))
        | ((XpEntry.source == "exercise_tier") & XpEntry.source_id.like(exercise_id + ":%")))) or 0
    return int(paid) + sum(_override_entries(db, user, sub_ids))


def exercise_xp_target(db: Session, user: User, exercise_id: str) -> int:
    """What it should pay, judged on the effective verdicts (app.progress.verdicts): its pass once,
    each tier met once."""
    passes = [e for e in verdicts.effective(ev.current_events(db, user))
              if e.kind == ev.EXERCISE_PASSED and e.subject == exercise_id]
    return sum(d.amount for d in deeds(passes, {}, exercise_xp_from_specs()))


def lock_learner(db: Session, user_id: int) -> User | None:
    """Serialise XP and achievement changes of one learner: overrides and re-balances read what
    the previous one committed (app.graders.reviews' docstring). Returns the learner, freshly read."""
    db.execute(update(User).where(User.id == user_id).values(progress_epoch=User.progress_epoch))
    return db.get(User, user_id, populate_existing=True)


def compensate(db: Session, learner: User, exercise_id: str, sub_ids: set[int], reason: str, reference: str) -> int:
    """One adjustment bringing the exercise's XP to its target; the amount (0 when none was due).
    ``sub_ids``: the learner's submissions for the exercise."""
    delta = exercise_xp_target(db, learner, exercise_id) - exercise_xp_now(db, learner, exercise_id, sub_ids)
    delta = max(delta, -ledger.total_xp(db, learner))  # never below zero in total
    if delta and ledger.adjust(db, learner, delta, reason[:200], reference) is not None:
        return delta
    return 0
