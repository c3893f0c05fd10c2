"""Every submission for graders: filters, flagged ones first, and the flat rows of the exports.

Flagged = the engine raised a flag a human should look at (too fast to be true, noisy timing,
device printf, an unsandboxed compile) or caught the kernel cheating (inputs written, wrong only
once timing started).
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.classes.models import ClassMember
from app.core import vocabulary
from app.core.ids import FIRST_DAY, LAST_DAY, row_id
from app.graders.reviews import review_json
from app.submissions.models import Submission
from app.submissions.reviews import effective_verdict, reviews_for

REVIEW_FLAGS = {"IMPLAUSIBLY_FAST", "NOISY_TIMING", "DEVICE_OUTPUT", "UNSANDBOXED_COMPILE"}
REVIEW_MESSAGES = {"INPUT_MODIFIED", "WRONG_ANSWER_TIMED_RUN"}
MAX_ROWS = 1000
PENDING = vocabulary.PENDING  # verdict filter value: no verdict yet (queued, running or awaiting a GPU)


@dataclass
class Filters:
    exercise: str = ""
    learner: str = ""
    verdict: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    class_id: int | None = None  # only the learners of this class (app/classes)

    @classmethod
    def parse(cls, params: Mapping[str, Any]) -> Filters:
        def day(name: str) -> dt.date | None:
            try:
                value = dt.date.fromisoformat((params.get(name) or "").strip()) if params.get(name) else None
            except ValueError:
                return None
            # routes refuse days out of range first (OptionalDay); any other caller gets no filter
            return value if value is None or FIRST_DAY <= value <= LAST_DAY else None
        return cls(exercise=(params.get("exercise") or "").strip()[:64],
                   learner=(params.get("learner") or "").strip()[:32],
                   verdict=(params.get("verdict") or "").strip().upper()[:16],
                   date_from=day("from"), date_to=day("to"), class_id=row_id(params.get("class")))

    def query(self) -> dict[str, str]:
        out = {"exercise": self.exercise, "learner": self.learner, "verdict": self.verdict,
               "from": self.date_from.isoformat() if self.date_from else "",
               "to": self.date_to.isoformat() if self.date_to else "",
               "class": str(self.class_id) if self.class_id is not None else ""}
        return {k: v for k, v in out.items() if v}


def class_learners(class_id: int) -> Select[int]:
    """The learner ids of a class, as a subquery (no rows for an unknown class)."""
    return select(ClassMember.user_id).where(ClassMember.class_id == class_id, ClassMember.role == "learner")


def flags_of(result: dict[str, Any] | None) -> list[str]:
    if not result:
        return []
    codes = [f.get("code") for f in result.get("flags") or [] if f.get("code") in REVIEW_FLAGS]
    message = (result.get("message") or {}).get("code")
    if message in REVIEW_MESSAGES:
        codes.append(message)
    return codes


def _speedup(result: dict[str, Any] | None, against: str) -> dict[str, Any] | None:
    """The speedup at the largest timing size (the one tiers are judged on)."""
    rows = [s for s in (result or {}).get("speedups") or [] if s.get("against") == against]
    if not rows:
        return None
    largest: dict[str, Any] = max(rows, key=lambda s: sum((s.get("size") or {}).values()))
    return largest


def list_rows(db: Session, filters: Filters) -> list[dict[str, Any]]:
    q = (select(Submission, User.username).join(User, User.id == Submission.user_id)
         .order_by(Submission.created_at.desc(), Submission.id.desc()))
    if filters.exercise:
        q = q.where(Submission.exercise_id == filters.exercise)
    if filters.learner:
        q = q.where(func.lower(User.username).contains(filters.learner.lower()))
    if filters.class_id is not None:
        q = q.where(Submission.user_id.in_(class_learners(filters.class_id)))
    if filters.date_from:
        q = q.where(Submission.created_at >= dt.datetime.combine(filters.date_from, dt.time()))
    if filters.date_to:
        q = q.where(Submission.created_at < dt.datetime.combine(filters.date_to + dt.timedelta(days=1), dt.time()))
    pairs = list(db.execute(q.limit(MAX_ROWS)))
    reviews = reviews_for(db, [s.id for s, _ in pairs])
    rows = []
    for sub, username in pairs:
        result = json.loads(sub.result) if sub.result else None
        mine = reviews[sub.id]
        effective = effective_verdict(sub, mine)
        if filters.verdict:  # what the row reads as (vocabulary.status): its verdict once graded, else waiting
            if filters.verdict == PENDING:
                if sub.state == "done":
                    continue
            elif sub.state != "done" or effective != filters.verdict:
                continue
        flags = flags_of(result)
        rows.append({"submission": sub, "result": result, "username": username, "reviews": mine,
                     "effective_verdict": effective, "flags": flags, "flagged": bool(flags),
                     "overridden": any(r.kind == "override" for r in mine)})
    rows.sort(key=lambda r: not r["flagged"])  # stable: newest first inside each group
    return rows


def export_record(row: dict[str, Any], *, with_result: bool) -> dict[str, Any]:
    sub: Submission = row["submission"]
    result = row["result"] or {}
    record = {
        "id": sub.id, "created_at": sub.created_at.isoformat() + "Z", "learner": row["username"],
        "exercise": sub.exercise_id, "state": sub.state, "verdict": sub.verdict,
        "effective_verdict": row["effective_verdict"], "overridden": row["overridden"], "flagged": row["flagged"],
        "flags": row["flags"], "message": (result.get("message") or {}).get("code"),
        "xp": (result.get("xp") or {}).get("total", 0), "gpu": (result.get("gpu") or {}).get("name"),
    }
    for against in ("naive", "tiled", "baseline"):
        s = _speedup(result, against)
        record[f"speedup_{against}"] = s.get("value") if s else None
        record[f"speedup_{against}_ci_low"] = s.get("ci_low") if s else None
    record["reviews"] = [review_json(r) for r in row["reviews"]]
    if with_result:
        record["result"] = row["result"]
        record["source"] = sub.source
    return record


CSV_COLUMNS = ("id", "created_at", "learner", "exercise", "exercise_title", "status", "status_label", "state",
               "state_label", "verdict", "verdict_label", "effective_verdict", "effective_verdict_label", "overridden",
               "flagged", "flags", "flags_labels", "message", "message_label", "xp", "gpu", "speedup_naive",
               "speedup_naive_ci_low", "speedup_tiled", "speedup_tiled_ci_low", "speedup_baseline",
               "speedup_baseline_ci_low", "reviews")


CSV_DECIMALS = 2  # speedups are shown as 1.23× on the dashboard


def csv_labels(rec: dict[str, Any], lang: str, exercise_title: Callable[[str], str] | None = None) -> dict[str, str]:
    """The label columns, in the requester's language, beside the code columns they name (the
    words the dashboard shows: app/core/vocabulary.py). ``status`` is what the row reads as."""
    graded = rec.get("state") == "done"
    kind, status = vocabulary.status(rec.get("state"), rec.get("effective_verdict"))
    exercise = rec.get("exercise") or ""
    return {
        "exercise_title": exercise_title(exercise) if exercise_title and exercise else "",
        "status": status, "status_label": vocabulary.label(kind, status, lang),
        "state_label": vocabulary.label(vocabulary.STATE, rec.get("state"), lang),
        "verdict_label": vocabulary.label(vocabulary.VERDICT, rec.get("verdict"), lang) if graded else "",
        "effective_verdict_label": vocabulary.label(vocabulary.VERDICT, rec.get("effective_verdict"), lang)
        if graded else "",
        "flags_labels": "; ".join(vocabulary.labels(vocabulary.CODE, rec.get("flags") or [], lang)),
        "message_label": vocabulary.label(vocabulary.CODE, rec.get("message"), lang),
    }


def to_csv(records: list[dict[str, Any]], lang: str = "en",
           exercise_title: Callable[[str], str] | None = None) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rec in records:
        rec = {**rec, **csv_labels(rec, lang, exercise_title)}
        cells = []
        for col in CSV_COLUMNS:
            value = rec.get(col)
            if col == "flags":
                value = " ".join(value or [])
            elif col == "reviews":
                value = len(value or [])
            elif value is None:
                value = ""
            elif isinstance(value, float):
                value = f"{value:.{CSV_DECIMALS}f}"  # the dashboard's precision, not float noise (3.3480000000000003)
            cells.append(_csv_safe(value))
        writer.writerow(cells)
    return buffer.getvalue()


def _csv_safe(value: Any) -> Any:
    """A learner's username must not run as a spreadsheet formula (CSV injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
