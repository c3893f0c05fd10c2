"""Leaderboards: ranked by the lower confidence bound, one row per learner, PASSED only, strikes
(audited, the learner notified), aliases, hide until due, the class's GPU, the site-wide opt-in."""
from __future__ import annotations

import datetime as dt

import pytest

from app.classes import assignments, boards, roster
from app.classes.messages import ClassesError

T0 = dt.datetime(2026, 12, 1, 9)


@pytest.fixture
def course(db, make_user):
    row = roster.create_class(db, make_user("kim", "instructor"), "GPU 101", tz="Asia/Seoul")
    boards.set_board(row, enabled=True, hide_until_due=False)
    return row


@pytest.fixture
def learners(db, course, make_user):
    people = [make_user(name) for name in ("lee", "park", "choi")]
    for u in people:
        roster.join(db, course.invite_code, u)
    return people


def _board(db, course, **kw):
    return [(e.rank, e.name, e.ci_low) for e in boards.entries(db, "gemm", boards.class_learners(db, course.id), **kw)]


def test_ranks_by_lower_bound_one_row_per_learner_passed_only(db, course, learners, submit):
    lee, park, choi = learners
    submit(lee, "gemm", "PASSED", T0, ci_low=1.5)
    submit(lee, "gemm", "PASSED", T0 + dt.timedelta(hours=1), ci_low=2.5)  # lee's best
    submit(park, "gemm", "PASSED", T0, ci_low=2.0)
    submit(choi, "gemm", "WRONG_ANSWER", T0, ci_low=9.0)  # wrong: never on a board
    rows = _board(db, course)
    assert rows == [(1, "lee", 2.5), (2, "park", 2.0)]


def test_lower_bound_not_point_estimate(db, course, learners, submit):
    import json

    lee, park, _choi = learners
    noisy = submit(lee, "gemm", "PASSED", T0, ci_low=1.2)
    result = json.loads(noisy.result)
    result["speedups"][0]["value"] = 5.0  # a lucky point estimate, a wide interval
    noisy.result = json.dumps(result)
    submit(park, "gemm", "PASSED", T0, ci_low=1.8)
    db.flush()
    assert _board(db, course) == [(1, "park", 1.8), (2, "lee", 1.2)]


def test_override_to_wrong_drops_the_entry(db, course, learners, submit, override, make_user):
    lee, park, _choi = learners
    best = submit(lee, "gemm", "PASSED", T0, ci_low=3.0)
    submit(lee, "gemm", "PASSED", T0, ci_low=1.0)
    override(best, "WRONG_ANSWER", make_user("han", "grader"))
    assert _board(db, course) == [(1, "lee", 1.0)]


def test_strike_drops_the_entry_is_audited_and_notifies(db, course, learners, submit, make_user):
    from app.notifications import service as notifications

    lee, park, _choi = learners
    best = submit(lee, "gemm", "PASSED", T0, ci_low=3.0)
    submit(lee, "gemm", "PASSED", T0, ci_low=1.0)
    submit(park, "gemm", "PASSED", T0, ci_low=2.0)
    han = make_user("han")
    roster.add_member(db, course, han, role="grader")
    entry = boards.strike(db, han, best.id, "copied from a public repository", class_id=course.id,
                          learners=boards.class_learners(db, course.id))
    assert (entry.grader_name, entry.reason) == ("han", "copied from a public repository")
    assert _board(db, course) == [(1, "park", 2.0), (2, "lee", 1.0)]
    [(audit, learner)] = boards.strikes(db, "gemm")
    assert (audit.submission_id, learner) == (best.id, "lee")
    [note] = notifications.recent(db, lee)
    assert (note.kind, note.strike["note"], note.strike["submission"]) == ("strike", "copied from a public repository",
                                                                          best.id)
    assert notifications.strike_text(note, "en", "GEMM") == (
        f"A grader removed your submission #{best.id} (GEMM) from the leaderboards.")
    with pytest.raises(ClassesError) as err:
        boards.strike(db, han, best.id, "again")
    assert (err.value.code, err.value.status) == ("already_struck", 409)


@pytest.mark.parametrize("reason", ["", "   ", "x" * 2001])
def test_strike_needs_a_reason(db, course, learners, submit, make_user, reason):
    sub = submit(learners[0], "gemm", "PASSED", T0, ci_low=1.0)
    with pytest.raises(ClassesError) as err:
        boards.strike(db, make_user("han", "grader"), sub.id, reason)
    assert err.value.code == "reason_required"


def test_class_grader_strikes_only_their_learners(db, course, submit, make_user):
    outsider = make_user("out")
    sub = submit(outsider, "gemm", "PASSED", T0, ci_low=1.0)
    with pytest.raises(ClassesError) as err:
        boards.strike(db, make_user("han"), sub.id, "copy", learners=boards.class_learners(db, course.id))
    assert err.value.code == "not_on_board"


def test_alias_is_shown_when_chosen(db, course, learners, submit):
    lee = learners[0]
    submit(lee, "gemm", "PASSED", T0, ci_low=1.0)
    boards.set_profile(db, lee, use_alias=True, alias="Warp Speed", site_board=False)
    [entry] = boards.entries(db, "gemm", boards.class_learners(db, course.id))
    assert (entry.name, entry.is_alias) == ("Warp Speed", True)
    with pytest.raises(ClassesError) as err:
        boards.set_profile(db, lee, use_alias=True, alias="", site_board=False)
    assert err.value.code == "alias_required"
    with pytest.raises(ClassesError) as err:
        boards.set_profile(db, lee, use_alias=True, alias="a" * 33, site_board=False)
    assert err.value.code == "alias_too_long"


def test_hidden_until_the_due_time(db, course, learners):
    due = assignments.parse_local("2026-12-04T23:59", "Asia/Seoul")
    assignments.create_assignment(db, course, title="Week 1", opens_at=T0, due_at=due, exercises=["gemm"],
                                  known_lessons=set(), known_exercises={"gemm": []})
    assert boards.hidden_until(db, course, "gemm", now=dt.datetime(2026, 12, 4, 14, 58)) is None  # not asked to hide
    boards.set_board(course, enabled=True, hide_until_due=True)
    assert boards.hidden_until(db, course, "gemm", now=dt.datetime(2026, 12, 4, 14, 58)) == dt.datetime(2026, 12, 4, 14, 59)
    assert boards.hidden_until(db, course, "gemm", now=dt.datetime(2026, 12, 4, 15, 0)) is None
    assert boards.hidden_until(db, course, "transpose", now=T0) is None  # no assignment names it


def test_class_gpu_keeps_only_its_results(db, course, learners, submit):
    lee, park, _choi = learners
    submit(lee, "gemm", "PASSED", T0, ci_low=2.0, gpu="NVIDIA H200")
    submit(park, "gemm", "PASSED", T0, ci_low=1.0, gpu="NVIDIA H100 80GB HBM3")
    assert [(n, g) for _r, n, g in [(e.rank, e.name, e.gpu) for e in boards.entries(
        db, "gemm", boards.class_learners(db, course.id), gpu="h100")]] == [("park", "NVIDIA H100 80GB HBM3")]


def test_site_board_only_for_learners_who_opt_in(db, learners, submit):
    lee, park, _choi = learners
    submit(lee, "gemm", "PASSED", T0, ci_low=2.0)
    submit(park, "gemm", "PASSED", T0, ci_low=1.0)
    assert boards.entries(db, "gemm", boards.site_learners(db)) == []
    boards.set_profile(db, park, use_alias=False, alias="", site_board=True)
    assert [e.name for e in boards.entries(db, "gemm", boards.site_learners(db))] == ["park"]
