"""What the panel shows of a submission whose verdict a grader changed.

The grader's verdict is the one the learner sees everywhere on the panel, and what hangs on a
verdict follows it: the headline sentence, the speed tiers and the XP this submission earns.

- Overridden to anything but PASSED: no tier is shown as met (the timings stay: they are what was
  measured), "XP earned" is 0, and the engine's sentence ("Correct at all 3 sizes") gives way to
  the grader's note; the automatic check's verdict stays beside the badge.
- Overridden to PASSED when the engine did not pass it: the pass XP of the exercise, and no tier
  (a grader's word is not a timing).

Achievements follow the same effective verdicts (app.progress.verdicts): taken back while the
override stands, earned again when a later override restores the verdict.
"""
from __future__ import annotations

from typing import Any

from app.core import vocabulary
from app.submissions.models import Submission, SubmissionReview
from app.submissions.reviews import effective_verdict


def _pass_xp(exercise_id: str) -> int:
    from kernels.engine import load_exercise

    try:
        return int(load_exercise(exercise_id).pass_xp)
    except Exception:  # an exercise removed since: nothing to say about its XP
        return 0


def apply(panel: dict[str, Any], row: Submission, trail: list[SubmissionReview], lang: str) -> dict[str, Any]:
    """Turn app.panel.present's view of the engine's Result into what the grader's verdict makes it."""
    engine = panel.get("verdict")
    effective = effective_verdict(row, trail) if engine else None
    panel["engine_verdict"] = engine
    panel["overridden"] = bool(engine) and effective != engine
    if not panel["overridden"]:
        return panel
    panel["engine_verdict_label"] = panel.get("verdict_label", "")
    panel["verdict"], panel["verdict_label"] = effective, vocabulary.label(vocabulary.VERDICT, effective, lang)
    panel["engine_message"], panel["message"] = panel.get("message", ""), ""
    tiers = panel.get("tiers") or []
    panel["tiers_void"] = effective != "PASSED" and any(t.get("met") for t in tiers)
    panel["tiers"] = [{**t, "met": False} for t in tiers]
    panel["xp"] = _pass_xp(row.exercise_id) if effective == "PASSED" else 0
    return panel


def panel_json(panel: dict[str, Any]) -> dict[str, Any]:
    """The panel's view of one submission as JSON (GET /api/panel/submissions/{id})."""
    return {
        "id": panel.get("id"), "state": panel.get("state"), "state_label": panel.get("state_label"),
        "verdict": panel.get("verdict"), "verdict_label": panel.get("verdict_label"),
        "engine_verdict": panel.get("engine_verdict"), "overridden": panel.get("overridden", False),
        "message": panel.get("message"), "xp": panel.get("xp", 0),
        "tiers": [{"id": t.get("id"), "against": t.get("against"), "met": bool(t.get("met")), "xp": t.get("xp")}
                  for t in panel.get("tiers") or []],
        "reviews": [{"kind": r["kind"], "note": r["reason"], "xp_delta": r["xp_delta"],
                     "verdict_label": r["verdict_label"]} for r in panel.get("reviews") or []],
    }
