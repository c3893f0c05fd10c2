"""One learner's submissions for one exercise, and a line diff between two of them."""
from __future__ import annotations

import difflib
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.core import vocabulary as vocab
from app.panel.present import KERNEL_ORDER
from app.submissions.models import Submission
from app.submissions.reviews import effective_verdict, reviews_for

LIMIT = 50


def own_history(db: Session, user_id: int, exercise_id: str, lang: str) -> list[dict[str, Any]]:
    rows = list(db.scalars(select(Submission).where(Submission.user_id == user_id,
                                                    Submission.exercise_id == exercise_id)
                           .order_by(Submission.id.desc()).limit(LIMIT)))
    reviews = reviews_for(db, [r.id for r in rows])
    out = []
    for row in rows:
        result = json.loads(row.result) if row.result else {}
        verdict = effective_verdict(row, reviews[row.id]) if row.state == "done" else None
        speedups: dict[str, dict[str, Any]] = {}
        for s in result.get("speedups") or []:
            current = speedups.get(s.get("against"))
            if current is None or sum(s["size"].values()) >= sum(current["size"].values()):
                speedups[s.get("against")] = s
        out.append({
            "id": row.id, "created_at": row.created_at, "state": row.state,
            "state_label": vocab.label(vocab.STATE, row.state, lang),
            "verdict": verdict, "verdict_label": vocab.label(vocab.VERDICT, verdict, lang),
            "overridden": any(r.kind == "override" for r in reviews[row.id]),
            "speedups": [(vocab.label(vocab.KERNEL, k, lang), speedups[k]["value"]) for k in KERNEL_ORDER if k in speedups],
        })
    return out


def diff_lines(old: str, new: str, old_name: str, new_name: str) -> list[tuple[str, str]]:
    """(kind, text) per unified-diff line: kind is add, del, hunk, head or same."""
    out = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), old_name, new_name, lineterm="", n=3):
        if line.startswith(("---", "+++")):
            kind = "head"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "same"
        out.append((kind, line))
    return out
