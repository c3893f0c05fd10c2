"""Assignment and Grade Services: each assignment is a line item at the LMS, a learner's score is sent
when it changes (a pass, a grader's override), failures are retried and never lost, and an older score
never follows a newer one. The LMS is lti1p3platform's AGS service over HTTP (its token endpoint checks
our client assertion against our JWKS)."""
from __future__ import annotations

import datetime as dt
import json

from sqlalchemy import select, update

from app.core.services import app_services
from app.lessons.exercises import ExerciseInfoCache
from tests.lti.handoff import hand_off
from tests.lti.platform import INSTRUCTOR, LEARNER, LaunchPlan, Person


def join(lms, hint, person):
    browser = lms.browser()
    page = lms.launch(browser, hint, LaunchPlan(person))
    done = hand_off(page).new_account(lms, browser, follow_redirects=False)
    return browser, done.headers["location"]


def make_assignment(lms, title, exercises):
    from app.classes import assignments
    from app.classes.models import CourseClass

    with lms.db() as db:
        course = db.scalar(select(CourseClass))
        row = assignments.create_assignment(
            db, course, title=title, opens_at=dt.datetime(2026, 1, 1), due_at=dt.datetime(2099, 1, 1),
            exercises=exercises, known_lessons=set(), known_exercises={e: () for e in exercises})
        db.commit()
        return row.id


def submit(lms, username, exercise, verdict):
    from app.accounts.users import find_user
    from app.submissions.models import Submission

    with lms.db() as db:
        user = find_user(db, username)
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        row = Submission(user_id=user.id, exercise_id=exercise, source="// k", state="done", verdict=verdict,
                         result=json.dumps({"verdict": verdict, "tiers": []}), created_at=now, updated_at=now,
                         finished_at=now)
        db.add(row)
        db.commit()
        return row.id


def override(lms, submission_id, verdict):
    from app.submissions.models import Submission, SubmissionReview

    with lms.db() as db:
        sub = db.get(Submission, submission_id)
        db.add(SubmissionReview(submission_id=sub.id, grader_id=None, grader_name="", kind="override",
                                verdict_before=sub.verdict, verdict_after=verdict, reason="checked by hand"))
        db.commit()


def run_pass(lms):
    from app.lti import passback

    return passback.run_pass(app_services(lms.app).session_factory, app_services(lms.app).get(ExerciseInfoCache))


def sent(lms):
    """Every score the LMS accepted: (line item label, LMS user, given, maximum)."""
    return [(lms.state.line_items[url]["label"], s["userId"], s["scoreGiven"], s["scoreMaximum"])
            for url, scores in lms.state.scores.items() for s in scores]


def gradebook(lms, browser, lang):
    """The class gradebook page of the LMS course's class, as ``browser`` sees it."""
    from app.classes.models import CourseClass

    with lms.db() as db:
        class_id = db.scalar(select(CourseClass.id))
    page = browser.get(f"{lms.tool}/{lang}/classes/{class_id}/gradebook")
    assert page.status_code == 200
    return page.text


def test_scores_reach_the_lms_gradebook_once_per_change_in_order(lms):
    from app.lti.models import LtiScore

    teacher, course = join(lms, "t", Person("lms-t", "Teacher", [INSTRUCTOR]))
    join(lms, "ann", Person("lms-ann", "Ann", [LEARNER]))
    make_assignment(lms, "Week 1", ["gemm", "transpose"])

    assert run_pass(lms) == 0  # nothing earned: no line item, no score
    assert lms.state.line_items == {}

    gemm = submit(lms, "Ann", "gemm", "PASSED")
    assert run_pass(lms) == 1
    [item] = lms.state.line_items.values()
    assert item["label"] == "Week 1" and item["tag"].startswith("assignment:")
    assert sent(lms) == [("Week 1", "lms-ann", 1.0, 2.0)]
    assert run_pass(lms) == 0  # unchanged: nothing posted twice
    # the class gradebook says, beside Ann's score, what the LMS was sent and when, in both languages
    en, ko = gradebook(lms, teacher, "en"), gradebook(lms, teacher, "ko")
    assert 'data-lms="sent"' in en and "LMS: sent 1/2" in en and "LMS: 1/2 보냈어요" in ko
    assert "This class is linked to an LMS course" in en and 'href="/ko/lti/courses/' in ko

    # the LMS is down while Ann passes the second exercise
    lms.state.score_outage = 1
    submit(lms, "Ann", "transpose", "PASSED")
    assert run_pass(lms) == 1
    assert sent(lms) == [("Week 1", "lms-ann", 1.0, 2.0)]
    with lms.db() as db:
        row = db.scalar(select(LtiScore))
        assert (row.score, row.sent_score, row.attempts, row.last_error) == (2.0, 1.0, 1, "http_503")
    page = teacher.get(lms.tool + course)
    assert 'data-score-state="retrying"' in page.text and "http_503" in page.text
    en, ko = gradebook(lms, teacher, "en"), gradebook(lms, teacher, "ko")
    assert 'data-lms="retrying"' in en and "LMS: 2/2 not taken yet; trying again at" in en
    assert "LMS: 2/2 아직 받지 않았어요." in ko

    # before the retry, a grader overrides the gemm pass: the LMS must end with 1/2, never 2/2 after it
    override(lms, gemm, "WRONG_ANSWER")
    with lms.db() as db:  # the back-off is over (set, not waited for)
        db.execute(update(LtiScore).values(next_try_at=dt.datetime(2000, 1, 1)))
        db.commit()
    assert run_pass(lms) == 1
    assert sent(lms) == [("Week 1", "lms-ann", 1.0, 2.0), ("Week 1", "lms-ann", 1.0, 2.0)]
    stamps = [s["timestamp"] for scores in lms.state.scores.values() for s in scores]
    assert stamps == sorted(stamps) and stamps[0] != stamps[1]
    with lms.db() as db:
        row = db.scalar(select(LtiScore))
        assert (row.version, row.sent_version, row.attempts) == (3, 3, 0)
    page = teacher.get(lms.tool + course)
    assert 'data-score-state="sent"' in page.text


def test_two_senders_never_send_one_score_at_once(lms):
    from app.lti import passback
    from app.lti.models import LtiScore

    join(lms, "t", Person("lms-t", "Teacher", [INSTRUCTOR]))
    join(lms, "ann", Person("lms-ann", "Ann", [LEARNER]))
    make_assignment(lms, "Week 1", ["gemm"])
    submit(lms, "Ann", "gemm", "PASSED")
    with lms.db() as db:
        passback.scan(db, app_services(lms.app).get(ExerciseInfoCache))
        db.commit()
        assert db.scalar(select(LtiScore.version)) == 1
    with lms.db() as first, lms.db() as second:
        assert passback.claim_next(first, "sender-a") is not None
        assert passback.claim_next(second, "sender-b") is None  # leased by the first
    # a sender that died with the lease: the row is due again once the lease runs out
    with lms.db() as db:
        db.execute(update(LtiScore).values(lease_expires_at=dt.datetime(2000, 1, 1)))
        db.commit()
        assert passback.send_one(db, "sender-b") is True
    assert sent(lms) == [("Week 1", "lms-ann", 1.0, 1.0)]


def test_learners_without_an_lms_account_are_not_sent(lms):
    from tests.accounts.conftest import PASSWORD

    join(lms, "t", Person("lms-t", "Teacher", [INSTRUCTOR]))
    make_assignment(lms, "Week 1", ["gemm"])
    # a learner who joined the class some other way (invite code) has no LMS identity
    from app.accounts import users
    from app.classes import roster
    from app.classes.models import CourseClass
    with lms.db() as db:
        user = users.create_user(db, "walkin", PASSWORD)
        roster.add_member(db, db.scalar(select(CourseClass)), user, role="learner", source="invite")
        db.commit()
    submit(lms, "walkin", "gemm", "PASSED")
    assert run_pass(lms) == 0
    assert sent(lms) == []
