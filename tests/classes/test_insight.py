"""Insight per assignment: started, passed, tiers, common failure codes, medians, not started."""
from __future__ import annotations

import datetime as dt

from app.classes import assignments, insight, roster

T0 = dt.datetime(2026, 12, 1, 9)


def test_insight_counts(db, make_user, submit, override):
    row = roster.create_class(db, make_user("kim", "instructor"), "GPU 101")
    a = assignments.create_assignment(db, row, title="Week 1", opens_at=T0, due_at=T0 + dt.timedelta(days=3),
                                      exercises=["gemm"], known_lessons=set(),
                                      known_exercises={"gemm": ["beat_naive", "beat_tiled"]})
    lee, park, choi, han = (make_user(n) for n in ("lee", "park", "choi", "han"))
    for u in (lee, park, choi, han):
        roster.join(db, row.invite_code, u)
    submit(lee, "gemm", "WRONG_ANSWER", T0)
    submit(lee, "gemm", "COMPILE_ERROR", T0 + dt.timedelta(minutes=10))
    submit(lee, "gemm", "PASSED", T0 + dt.timedelta(minutes=30), tiers=("beat_naive",))
    submit(park, "gemm", "WRONG_ANSWER", T0)
    submit(park, "gemm", "PASSED", T0 + dt.timedelta(minutes=10), tiers=("beat_naive", "beat_tiled"))
    wrong = submit(choi, "gemm", "WRONG_ANSWER", T0)
    override(wrong, "RUNTIME_ERROR")  # a grader's reading: its engine code no longer explains it
    view = assignments.get(db, row.id, a.id)
    report = insight.assignment_insight(db, roster.roster(db, row.id, "learner"), view,
                                        {"gemm": ["beat_naive", "beat_tiled"]})
    assert (report.learners, report.not_started) == (4, ["han"])
    [ex] = report.exercises
    assert (ex.started, ex.passed) == (3, 2)
    assert ex.tiers == [("passed", 2), ("beat_naive", 2), ("beat_tiled", 1)]
    assert ex.failure_codes == [("WRONG_ANSWER", 2), ("COMPILE_ERROR", 1)]
    assert (ex.median_attempts_to_pass, ex.median_minutes_to_pass) == (2.5, 20.0)
