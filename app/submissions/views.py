"""A submission row as JSON. The code (``source``) only goes to its author and to reviewers."""
from __future__ import annotations

import datetime as dt
import json
from typing import Any

from app.core.clock import utcnow
from app.core.errors import translate
from app.submissions import states
from app.submissions.gpu_budget import GpuWait
from app.submissions.messages import STATES, WAITING
from app.submissions.models import Submission, SubmissionReview
from app.submissions.reviews import effective_verdict


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() + "Z" if value else None


def _ms(a: dt.datetime | None, b: dt.datetime | None) -> float | None:
    return round((b - a).total_seconds() * 1000, 1) if a and b else None


def state_text(row: Submission, lang: str, position: int | None, gpu_wait: GpuWait | None = None) -> str:
    """The state in the reader's language; a queued row held back says why and until when."""
    if gpu_wait is not None:
        return translate(WAITING, "gpu_budget", lang, {
            "used": f"{gpu_wait.used_seconds:.0f}", "budget": f"{gpu_wait.budget_seconds:g}",
            "time": gpu_wait.until.strftime("%H:%M")})
    if row.state == states.QUEUED and row.waiting_reason in WAITING and row.waiting_until is not None:
        left = max(0.0, (row.waiting_until - utcnow()).total_seconds())
        return translate(WAITING, row.waiting_reason, lang, {"minutes": max(1, -(-int(left) // 60)),
                                                            "until": row.waiting_until.strftime("%H:%M:%S")})
    compiled = row.state == states.QUEUED and row.compile_ms is not None
    return translate(STATES, "compiled" if compiled else row.state, lang, {"position": position})


def submission_json(row: Submission, *, lang: str, position: int | None, include_source: bool,
                    include_result: bool = True, reviews: list[SubmissionReview] | None = None,
                    seconds_per_job: float | None = None, gpu_wait: GpuWait | None = None) -> dict[str, Any]:
    """``reviews`` is the submission's review trail (app.submissions.reviews.reviews_for): a grader's
    override is the verdict that counts, so the API reports it, with the engine's beside it.
    ``gpu_wait``: the row waits because its learner used their hourly GPU budget
    (app.submissions.gpu_budget.waiting_row); its state text says until when."""
    final = row.state in (states.DONE, states.CANCELLED)
    # Only a graded job has a verdict: one waiting for a GPU carries the engine's UNAVAILABLE in its
    # row (a script told to resubmit on UNAVAILABLE would resubmit it), a cancelled one never ran.
    graded = row.state == states.DONE
    automatic = row.verdict if graded else None
    verdict = effective_verdict(row, reviews or []) if graded else None
    data: dict[str, Any] = {
        "id": row.id,
        "exercise": row.exercise_id,
        "state": row.state,
        "state_text": state_text(row, lang, position, gpu_wait),
        "position": position if row.state in states.WAITING else None,
        # place in line x the median time of recent jobs; null without a place or a recent grading
        "estimate_s": round(position * seconds_per_job) if position and seconds_per_job and row.state in states.WAITING
        else None,
        "gpu_wait_until": _iso(gpu_wait.until) if gpu_wait is not None else None,
        "final": final,
        "verdict": verdict,
        "automatic_verdict": automatic,
        "overridden": verdict != automatic,
        # queued but held back: "compile_budget", "compile_cooldown" or "compile_long", and until when (UTC)
        "waiting_reason": row.waiting_reason if row.state == states.QUEUED else None,
        "waiting_until": _iso(row.waiting_until) if row.state == states.QUEUED else None,
        "launch": json.loads(row.launch) if row.launch else None,
        "source_bytes": row.source_bytes,
        "attempts": row.attempts,
        "created_at": _iso(row.created_at),
        "claimed_at": _iso(row.claimed_at),
        "started_at": _iso(row.started_at),
        "finished_at": _iso(row.finished_at),
        # queue wait, and dequeue -> engine start (the dispatcher's own overhead)
        "waited_ms": _ms(row.created_at, row.claimed_at),
        "dequeue_to_engine_ms": _ms(row.claimed_at, row.started_at),
        "links": {"self": f"/api/submissions/{row.id}", "events": f"/api/submissions/{row.id}/events",
                  "cancel": f"/api/submissions/{row.id}/cancel"},
    }
    if include_result:
        data["result"] = json.loads(row.result) if row.result else None  # the engine's Result, as is
    if include_source:
        data["source"] = row.source
    return data
