"""A grader's override in the one event log, and what the events mean once a grader has spoken.

A grading appends ``exercise_attempted``, ``exercise_passed`` and ``speedup_reached`` events that
name their submission; a grader's override appends one ``verdict_overridden`` event (the
submission, the new verdict, the one before, the audit entry's id). XP (app.progress.xp.rules.deeds) and
achievements (rules.evaluate) are rules over ``effective(events)``, never over the raw log:

- the latest override of a submission decides its verdict;
- a submission whose effective verdict is not PASSED contributes no ``exercise_passed`` and no
  ``speedup_reached`` event: its pass, its speed tiers and its speed achievements no longer count;
- a submission the engine did not pass, overridden to PASSED, contributes an ``exercise_passed``
  event at the time of the override with no tiers (a grader's word is not a timing);
- ``exercise_attempted`` events stay (the learner did try, and "it compiles" is the compiler's
  word), with the effective verdict in their data.

Achievements follow the effective verdicts both ways. An achievement whose
rule holds on the automatic verdicts but no longer on the effective ones is revoked: its
user_achievement row goes and an ``achievement_revoked`` event (the compensating event) records
what was taken back and when it had been earned. If a later override restores the deed, the
achievement is earned again (and announced again) like any other. Achievements that no override
touches are never taken back, whatever else changes (a new lesson does not revoke "Whole track").

XP follows the same events: the deeds of ``effective(events)`` are paid through the ledger once
(a grader's PASSED pays the exercise's pass deed like a grading does); what the ledger already
paid and the effective events no longer justify is taken back with a compensating ``adjustment``
entry (app.graders.reviews).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from app.progress import events as ev
from app.progress.events import EventView

# events that a grading appends for one submission (data["submission"] names it)
GRADED_KINDS = frozenset({ev.EXERCISE_ATTEMPTED, ev.EXERCISE_PASSED, ev.SPEEDUP_REACHED})


def overrides(events: Iterable[EventView]) -> dict[str, EventView]:
    """submission id -> its latest override event (events in log order: time, then id)."""
    latest: dict[str, EventView] = {}
    for e in events:
        if e.kind == ev.VERDICT_OVERRIDDEN and e.data.get("submission"):
            latest[str(e.data["submission"])] = e
    return latest


def effective(events: list[EventView]) -> list[EventView]:
    """The events as the graders' verdicts make them (see the module's docstring); time-ordered."""
    latest = overrides(events)
    if not latest:
        return events
    passed = {str(e.data.get("submission")) for e in events if e.kind == ev.EXERCISE_PASSED}
    out: list[EventView] = []
    for e in events:
        override = latest.get(str(e.data.get("submission"))) if e.kind in GRADED_KINDS else None
        if override is None:
            out.append(e)
            continue
        verdict = override.data.get("verdict")
        if e.kind == ev.EXERCISE_ATTEMPTED:
            out.append(dataclasses.replace(e, data={**e.data, "verdict": verdict}))
        elif verdict == "PASSED":
            out.append(e)
    for submission, override in latest.items():
        if override.data.get("verdict") == "PASSED" and submission not in passed:
            out.append(EventView(ev.EXERCISE_PASSED, override.occurred_at, override.subject,
                                 data={"submission": submission, "tiers_met": [], "by_grader": True},
                                 recorded_at=override.recorded_at))
    return sorted(out, key=lambda e: e.occurred_at)


def lost_achievements(automatic: Mapping[str, object], effective_earned: Mapping[str, object],
                      held: Iterable[str]) -> set[str]:
    """Held achievements that an override took away: earned on the automatic verdicts, not on the
    effective ones."""
    return {a for a in held if a in automatic and a not in effective_earned}
