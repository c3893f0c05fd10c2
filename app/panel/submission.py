"""One submission as the panel presents it, for its owner and for the graders' pages alike: the
engine's Result in the reader's language (app.panel.present), the profiler's insight, the graders'
notes, and the verdict the learner sees (a grader's override wins, with its tiers and XP, and the
engine's verdict stays beside it: app.panel.overridden).

The learner's panel (app.panel.routes) and the graders' submission page (app.graders.pages) both
call ``present_submission``; it reads the submission's queue position and review trail
(app.submissions) and depends on no route module.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from app.core import vocabulary as vocab
from app.core.clock import utcnow
from app.panel import overridden
from app.panel.insight import present_insight
from app.panel.present import present
from app.submissions import queue
from app.submissions.gpu_budget import waiting_row
from app.submissions.models import Submission
from app.submissions.reviews import reviews_for
from app.submissions.views import submission_json


def present_submission(db: Session, row: Submission, lang: str, *, owner_view: bool = False,
                       gpu_budget_seconds: float = 0.0) -> dict[str, Any]:
    """What the result template (panel/result.html) shows of ``row``; ``owner_view`` offers the
    profiler to the submission's owner when it passed. With ``gpu_budget_seconds`` a queued row of
    a learner past their hourly GPU time says when their next job can run."""
    wait = waiting_row(db, row, gpu_budget_seconds, utcnow())
    position = queue.position(db, row)
    view = submission_json(row, lang=lang, position=position, include_source=False, gpu_wait=wait,
                           seconds_per_job=queue.seconds_per_job(db) if position else None)
    panel = present(view, lang)
    panel["insight"] = present_insight((view.get("result") or {}).get("insight"), row.source, lang,
                                       can_profile=owner_view and panel.get("verdict") == "PASSED")
    trail = reviews_for(db, [row.id])[row.id]
    panel["reviews"] = [{"kind": r.kind, "reason": r.reason, "xp_delta": r.xp_delta,
                         "verdict_label": vocab.label(vocab.VERDICT, r.verdict_after, lang)}
                        for r in trail if r.kind in ("note", "override")]
    # a grader's override is the verdict the learner sees, with its tiers and XP; the engine's stays beside it
    # its author may take it back while it waits (the graders' page shows the same result without)
    panel["can_cancel"] = owner_view and row.state in ("queued", "awaiting_gpu")
    return overridden.apply(panel, row, trail, lang)
