"""What the LMS is told besides the numbers: a score short of the assignment's total is in progress, a
full one is completed; and a score the LMS refused waits before it is tried again, longer each time, at
most an hour. The LMS is lti1p3platform's AGS service over HTTP (see test_grades.py)."""
from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from tests.lti.platform import INSTRUCTOR, LEARNER, Person
from tests.lti.test_grades import join, make_assignment, run_pass, submit


def test_a_partial_score_is_in_progress_and_a_full_one_completed(lms):
    join(lms, "t", Person("lms-t", "Teacher", [INSTRUCTOR]))
    join(lms, "ann", Person("lms-ann", "Ann", [LEARNER]))
    make_assignment(lms, "Week 1", ["gemm", "transpose"])
    submit(lms, "Ann", "gemm", "PASSED")
    assert run_pass(lms) == 1
    submit(lms, "Ann", "transpose", "PASSED")
    assert run_pass(lms) == 1
    [scores] = lms.state.scores.values()
    assert [(s["scoreGiven"], s["scoreMaximum"], s["activityProgress"], s["gradingProgress"]) for s in scores] == [
        (1.0, 2.0, "InProgress", "FullyGraded"), (2.0, 2.0, "Completed", "FullyGraded")]


@pytest.mark.parametrize("attempts, seconds", [(1, 10), (2, 20), (3, 40), (9, 2560), (10, 3600), (40, 3600)])
def test_a_refused_score_waits_longer_each_time_at_most_an_hour(attempts, seconds):
    from app.lti.passback import _backoff

    assert _backoff(attempts) == dt.timedelta(seconds=seconds)


def test_the_first_refusal_waits_ten_seconds(lms):
    from app.lti.models import LtiScore

    join(lms, "t", Person("lms-t", "Teacher", [INSTRUCTOR]))
    join(lms, "ann", Person("lms-ann", "Ann", [LEARNER]))
    make_assignment(lms, "Week 1", ["gemm"])
    lms.state.score_outage = 1
    submit(lms, "Ann", "gemm", "PASSED")
    assert run_pass(lms) == 1
    with lms.db() as db:
        row = db.scalar(select(LtiScore))
        assert (row.attempts, row.last_error) == (1, "http_503")
        # the wait is counted from the refusal, which came after the score changed
        assert row.next_try_at - row.changed_at >= dt.timedelta(seconds=10)
