"""Leaderboards: per exercise and class (when its instructor turns them on), and one site-wide board
for learners who opt in.

An entry is a learner's best PASSED submission (effective verdict, so a grader's override counts),
ranked by the lower end of the confidence interval of its speedup (against the tiled reference at the
largest timing size, app/classes/work.py): a lucky point estimate never outranks a measured one. One
row per learner; a submission a grader struck is left out (the learner's next best takes its place).
The board shows the GPU that timed each entry; a class may rank only results from its grading GPU.
A learner is shown by name unless they chose an alias.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.classes.messages import ClassesError
from app.classes.models import Assignment, AssignmentItem, BoardProfile, BoardStrike, ClassMember, CourseClass
from app.classes.work import attempts, ranked_speedup
from app.core.clock import utcnow
from app.core.db import get_or_create
from app.progress.once import insert_once
from app.submissions.models import Submission
from app.submissions.reviews import effective_verdict, reviews_for

REASON_MAX = 2000
ALIAS_MAX = 32
# Called as listener(db, strike, learner_id) once a strike is stored; app.notifications registers the
# learner's notification here (the notifications package builds on this one, never the reverse).
STRUCK: list[Callable[[Session, BoardStrike, int], object]] = []


@dataclass
class Entry:
    rank: int
    user_id: int
    name: str
    is_alias: bool
    submission_id: int
    ci_low: float
    value: float
    ci_high: float
    against: str
    gpu: str
    created_at: dt.datetime


def _names(db: Session, user_ids: Collection[int]) -> dict[int, tuple[str, bool]]:
    rows = db.execute(select(User.id, User.username, BoardProfile.alias, BoardProfile.use_alias)
                      .outerjoin(BoardProfile, BoardProfile.user_id == User.id).where(User.id.in_(list(user_ids))))
    return {uid: ((alias, True) if use_alias and alias else (name, False)) for uid, name, alias, use_alias in rows}


def entries(db: Session, exercise_id: str, user_ids: Collection[int] | None, *, gpu: str = "",
            tiers: Mapping[str, Sequence[str]] | None = None) -> list[Entry]:
    """The ranked board of ``exercise_id`` among ``user_ids`` (None: everyone); ``gpu`` keeps only
    results timed on a GPU whose name contains it."""
    struck = set(db.scalars(select(BoardStrike.submission_id).join(Submission, Submission.id == BoardStrike.submission_id)
                            .where(Submission.exercise_id == exercise_id)))
    best: dict[int, tuple[float, dt.datetime, Entry]] = {}
    wanted_gpu = gpu.strip().casefold()
    for t in attempts(db, user_ids, [exercise_id], tiers or {}, with_result=True):
        if t.verdict != "PASSED" or t.id in struck:
            continue
        speed = ranked_speedup(t.result)
        gpu_name = str((t.result.get("gpu") or {}).get("name") or "")
        if speed is None or (wanted_gpu and wanted_gpu not in gpu_name.casefold()):
            continue
        low = float(speed["ci_low"])
        entry = Entry(0, t.user_id, "", False, t.id, low, float(speed.get("value") or low),
                      float(speed.get("ci_high") or low), str(speed.get("against")), gpu_name, t.created_at)
        held = best.get(t.user_id)
        if held is None or low > held[0]:  # ties keep the earlier submission
            best[t.user_id] = (low, t.created_at, entry)
    ranked = sorted(best.values(), key=lambda b: (-b[0], b[1], b[2].submission_id))
    names = _names(db, list(best))
    out = []
    for i, (_low, _at, entry) in enumerate(ranked, start=1):
        entry.rank = i
        entry.name, entry.is_alias = names.get(entry.user_id, ("?", False))
        out.append(entry)
    return out


def class_learners(db: Session, class_id: int) -> list[int]:
    return list(db.scalars(select(ClassMember.user_id).where(ClassMember.class_id == class_id,
                                                             ClassMember.role == "learner")))


def site_learners(db: Session) -> list[int]:
    return list(db.scalars(select(BoardProfile.user_id).where(BoardProfile.site_board.is_(True))))


def hidden_until(db: Session, row: CourseClass, exercise_id: str, now: dt.datetime | None = None) -> dt.datetime | None:
    """When the class hides its boards until the due time: the latest due time of its assignments that
    name ``exercise_id``, while it is still ahead; else None (the board is shown)."""
    if not row.board_hide_until_due:
        return None
    due = db.scalar(select(func.max(Assignment.due_at)).join(AssignmentItem, AssignmentItem.assignment_id == Assignment.id)
                    .where(Assignment.class_id == row.id, AssignmentItem.kind == "exercise",
                           AssignmentItem.ref == exercise_id))
    return due if due is not None and due > (now or utcnow()) else None


def set_board(row: CourseClass, *, enabled: bool, hide_until_due: bool, gpu: str = "") -> None:
    row.board_enabled, row.board_hide_until_due = bool(enabled), bool(hide_until_due)
    row.board_gpu = " ".join((gpu or "").split())[:64]


# ---- how a learner is shown ----------------------------------------------------------------------

def profile(db: Session, user_id: int) -> BoardProfile:
    return db.get(BoardProfile, user_id) or BoardProfile(user_id=user_id, alias="", use_alias=False, site_board=False)


def set_profile(db: Session, user: User, *, use_alias: bool, alias: str, site_board: bool) -> BoardProfile:
    alias = " ".join((alias or "").split())
    if len(alias) > ALIAS_MAX:
        raise ClassesError("alias_too_long", status=400)
    if use_alias and not alias:
        raise ClassesError("alias_required", status=400)
    row = get_or_create(db, BoardProfile, user.id, user_id=user.id, alias="", use_alias=False, site_board=False)
    row.alias, row.use_alias, row.site_board = alias, bool(use_alias), bool(site_board)
    db.flush()
    return row


# ---- strikes -----------------------------------------------------------------------------------------

def strike(db: Session, grader: User, submission_id: int, reason: str, *, class_id: int | None = None,
           learners: Collection[int] | None = None) -> BoardStrike:
    """Strike a submission from every board, with a reason (the audit entry), and notify its author.
    ``learners``: the class's learners when a class's grader strikes (only their entries)."""
    reason = (reason or "").strip()
    if not reason or len(reason) > REASON_MAX:
        raise ClassesError("reason_required", status=400)
    row = db.get(Submission, submission_id)
    if row is None or (learners is not None and row.user_id not in learners):
        raise ClassesError("not_on_board", status=404)
    if row.state != "done" or effective_verdict(row, reviews_for(db, [row.id])[row.id]) != "PASSED":
        raise ClassesError("not_on_board", status=409)
    strike_id = insert_once(db, BoardStrike, submission_id=row.id, class_id=class_id, grader_id=grader.id,
                            grader_name=grader.username, reason=reason, created_at=utcnow())
    if strike_id is None:
        raise ClassesError("already_struck", status=409)
    entry = db.get(BoardStrike, strike_id)
    assert entry is not None
    for listener in STRUCK:
        listener(db, entry, row.user_id)
    return entry


def strikes(db: Session, exercise_id: str, user_ids: Collection[int] | None = None) -> list[tuple[BoardStrike, str]]:
    """The strikes of an exercise's submissions (with the learner's username), newest first."""
    query = (select(BoardStrike, User.username).join(Submission, Submission.id == BoardStrike.submission_id)
             .join(User, User.id == Submission.user_id).where(Submission.exercise_id == exercise_id)
             .order_by(BoardStrike.created_at.desc(), BoardStrike.id.desc()))
    if user_ids is not None:
        query = query.where(Submission.user_id.in_(list(user_ids)))
    return [(s, name) for s, name in db.execute(query)]
