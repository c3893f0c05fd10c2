"""XP as a rule over events: which deeds in the event log are worth XP, and how much.

Amounts come from content, never from code: a lesson's ``xp`` in its lesson.yaml, an exercise's
``xp.pass`` and tier bonuses in kernels/<id>/spec.yaml. The ledger then pays each deed once
(its UNIQUE constraint), so settling the same history twice pays nothing the second time.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from app.progress import events as ev
from app.progress.events import EventView


@dataclass(frozen=True)
class Deed:
    source: str  # ledger source: lesson | exercise_pass | exercise_tier
    source_id: str
    amount: int


# exercise id -> (pass XP, {tier id: XP}); None when the exercise is unknown
ExerciseXp = Callable[[str], "tuple[int, Mapping[str, int]] | None"]


def deeds(events: Iterable[EventView], lesson_xp: Mapping[str, int], exercise_xp: ExerciseXp) -> list[Deed]:
    found: dict[tuple[str, str], Deed] = {}

    def add(deed: Deed) -> None:
        if deed.amount > 0:
            found.setdefault((deed.source, deed.source_id), deed)

    for e in events:
        if e.kind == ev.LESSON_COMPLETED and e.subject in lesson_xp:
            add(Deed("lesson", e.subject, int(lesson_xp[e.subject])))
        elif e.kind == ev.EXERCISE_PASSED:
            amounts = exercise_xp(e.subject)
            if amounts is None:
                continue
            pass_xp, tiers = amounts
            add(Deed("exercise_pass", e.subject, int(pass_xp)))
            for tier_id in e.data.get("tiers_met", []):
                if tier_id in tiers:
                    add(Deed("exercise_tier", f"{e.subject}:{tier_id}", int(tiers[tier_id])))
    return list(found.values())


def exercise_xp_from_specs(kernels_dir: Path | None = None) -> ExerciseXp:
    """exercise id -> (pass XP, {tier id: XP}) from kernels/<id>/spec.yaml (engine loader)."""
    from kernels.engine import load_exercise
    from kernels.engine.exercise import ExerciseSpecError, UnknownExercise

    def lookup(exercise_id: str) -> tuple[int, Mapping[str, int]] | None:
        try:
            spec = load_exercise(exercise_id, kernels_dir) if kernels_dir else load_exercise(exercise_id)
        except (UnknownExercise, ExerciseSpecError, OSError):
            return None
        return spec.pass_xp, {t.id: t.xp for t in spec.tiers}
    return lookup
