"""Who is stuck (for instructors): per exercise, the learners with at least N failed
attempts and no pass, the most common verdict and message code of the last hour, and the median
time from a learner's first attempt to their first pass. Verdicts are the effective ones (a
grader's override counts). Pure queries + arithmetic; the page and the CSV share it."""
from __future__ import annotations

import csv
import datetime as dt
import io
import json
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core import vocabulary
from app.graders.listing import _csv_safe, class_learners
from app.submissions.models import Submission
from app.submissions.reviews import effective_verdict, reviews_for

FAILED = {"COMPILE_ERROR", "WRONG_ANSWER", "RUNTIME_ERROR", "TIME_LIMIT", "TOO_SLOW"}
DEFAULT_MIN_FAILURES = 3
MAX_MIN_FAILURES = 1000


@dataclass
class StuckLearner:
    user_id: int
    username: str
    failures: int
    last_attempt: dt.datetime
    last_verdict: str


@dataclass
class ExerciseReport:
    exercise: str
    learners: list[StuckLearner] = field(default_factory=list)
    attempts_last_hour: int = 0
    common_verdict: str | None = None
    common_verdict_count: int = 0
    common_code: str | None = None
    common_code_count: int = 0
    passed_learners: int = 0
    median_to_pass: dt.timedelta | None = None


def parse_min(value: object) -> int:
    try:
        n = int(str(value or DEFAULT_MIN_FAILURES).strip())
    except ValueError:
        return DEFAULT_MIN_FAILURES
    return min(max(n, 1), MAX_MIN_FAILURES)


def report(db: Session, *, min_failures: int = DEFAULT_MIN_FAILURES, now: dt.datetime | None = None,
           exercise: str = "", class_id: int | None = None) -> list[ExerciseReport]:
    """``class_id``: only the learners of that class."""
    now = now or dt.datetime.utcnow()
    hour_ago = now - dt.timedelta(hours=1)
    stmt = (select(Submission.id, Submission.user_id, Submission.exercise_id, Submission.verdict, Submission.state,
                   Submission.created_at, User.username)
            .join(User, User.id == Submission.user_id).order_by(Submission.created_at, Submission.id))
    if exercise:
        stmt = stmt.where(Submission.exercise_id == exercise)
    if class_id is not None:
        stmt = stmt.where(Submission.user_id.in_(class_learners(class_id)))
    rows = db.execute(stmt).all()
    trail = reviews_for(db, [r.id for r in rows]) if rows else {}
    recent_ids = [r.id for r in rows if r.created_at >= hour_ago and r.state == "done"]
    codes: dict[int, str | None] = {}
    if recent_ids:
        for sid, raw in db.execute(select(Submission.id, Submission.result).where(Submission.id.in_(recent_ids))):
            try:
                codes[sid] = ((json.loads(raw) if raw else {}).get("message") or {}).get("code")
            except (ValueError, AttributeError):
                codes[sid] = None

    per: dict[str, dict[int, list[tuple[Any, str | None]]]] = {}  # exercise -> learner -> (row, verdict)
    names: dict[int, str] = {}
    for r in rows:
        verdict = effective_verdict(r, trail.get(r.id, [])) if r.state == "done" else None
        per.setdefault(r.exercise_id, {}).setdefault(r.user_id, []).append((r, verdict))
        names[r.user_id] = r.username

    out = []
    for ex in sorted(per):
        rep = ExerciseReport(ex)
        verdicts: Counter[str | None] = Counter()
        msg_codes: Counter[str | None] = Counter()
        to_pass: list[dt.timedelta] = []
        for user_id, attempts in per[ex].items():
            passed_at = next((r.created_at for r, v in attempts if v == "PASSED"), None)
            if passed_at is not None:
                to_pass.append(passed_at - attempts[0][0].created_at)
            failures = [(r, v) for r, v in attempts if v in FAILED]
            if passed_at is None and len(failures) >= min_failures:
                last, last_v = failures[-1]
                rep.learners.append(StuckLearner(user_id, names[user_id], len(failures), last.created_at, last_v))
            for r, v in attempts:
                if r.created_at >= hour_ago and v:
                    verdicts[v] += 1
                    if codes.get(r.id):
                        msg_codes[codes[r.id]] += 1
        rep.learners.sort(key=lambda s: (-s.failures, s.username))
        rep.attempts_last_hour = sum(verdicts.values())
        if verdicts:
            rep.common_verdict, rep.common_verdict_count = verdicts.most_common(1)[0]
        if msg_codes:
            rep.common_code, rep.common_code_count = msg_codes.most_common(1)[0]
        rep.passed_learners = len(to_pass)
        if to_pass:
            rep.median_to_pass = dt.timedelta(seconds=statistics.median(d.total_seconds() for d in to_pass))
        out.append(rep)
    return out


def fmt_duration(d: dt.timedelta | None) -> str:
    if d is None:
        return ""
    minutes = int(d.total_seconds() // 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m"


CSV_COLUMNS = ["exercise", "exercise_title", "learner", "failed_attempts", "last_attempt", "last_verdict",
               "last_verdict_label", "history", "attempts_last_hour", "common_verdict_last_hour",
               "common_verdict_last_hour_label", "common_code_last_hour", "common_code_last_hour_label",
               "learners_passed", "median_minutes_to_pass"]


def to_csv(reports: list[ExerciseReport], lang: str, exercise_title: Callable[[str], str] | None = None) -> str:
    """One line per stuck learner (or per exercise with nobody stuck); beside each code its label
    in ``lang`` (app/core/vocabulary.py), the exercise's title beside its id."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for rep in reports:
        title = exercise_title(rep.exercise) if exercise_title else ""
        median = round(rep.median_to_pass.total_seconds() / 60, 1) if rep.median_to_pass else ""
        tail = [rep.attempts_last_hour, rep.common_verdict or "",
                vocabulary.label(vocabulary.VERDICT, rep.common_verdict, lang), rep.common_code or "",
                vocabulary.label(vocabulary.CODE, rep.common_code, lang), rep.passed_learners, median]
        for s in rep.learners:
            w.writerow([rep.exercise, title, _csv_safe(s.username), s.failures, s.last_attempt.isoformat() + "Z",
                        s.last_verdict, vocabulary.label(vocabulary.VERDICT, s.last_verdict, lang),
                        history_url(lang, s.username, rep.exercise), *tail])
        if not rep.learners:
            w.writerow([rep.exercise, title, "", 0, "", "", "", "", *tail])
    return buf.getvalue()


def history_url(lang: str, username: str, exercise: str) -> str:
    from urllib.parse import urlencode

    return f"/{lang}/graders?" + urlencode({"learner": username, "exercise": exercise})
