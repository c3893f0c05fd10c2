"""XP, in one place: what a learner's deeds are worth, paying them once, correcting what was paid,
and the history a reader sees. Import this package (``from app.progress import xp``) and use the
names below; the modules behind them each do one job:

- ``rules``: which deeds of the event log are worth XP, with amounts from lesson.yaml and the
  exercises' spec.yaml (pure functions over events);
- ``ledger``: the append-only XP ledger (a deed pays once by a UNIQUE constraint; corrections are
  compensating ``adjustment`` rows; a reset voids);
- ``settle``: paying every deed the effective events are worth and not yet paid;
- ``exercise``: one exercise's XP brought to what the effective verdicts are worth after a
  grader's override, with the learner's lock held;
- ``history_view``: the ledger's rows in words, for the profile page.
"""
from __future__ import annotations

from app.progress.xp.exercise import compensate, exercise_xp_now, exercise_xp_target, lock_learner, override_reference
from app.progress.xp.history_view import XpRow, deed_subject, history_rows
from app.progress.xp.ledger import SOURCES, adjust, history, pay, total_xp, void_all
from app.progress.xp.rules import Deed, ExerciseXp, deeds, exercise_xp_from_specs
from app.progress.xp.settle import settle_xp

__all__ = [
    "SOURCES", "Deed", "ExerciseXp", "XpRow", "adjust", "compensate", "deed_subject", "deeds",
    "exercise_xp_from_specs", "exercise_xp_now", "exercise_xp_target", "history", "history_rows",
    "lock_learner", "override_reference", "pay", "settle_xp", "total_xp", "void_all",
]
