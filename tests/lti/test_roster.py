"""Names and Role Provisioning Services: the instructor syncs the class roster from the LMS
(lti1p3platform's membership service, reached with a token from its token endpoint, which checks our
client assertion against our JWKS over HTTP)."""
from __future__ import annotations

import re

from sqlalchemy import select

from tests.lti.handoff import hand_off
from tests.lti.platform import INSTRUCTOR, LEARNER, TEACHING_ASSISTANT, LaunchPlan, Person

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def sign_in_through_lms(lms, hint, person, **plan):
    browser = lms.browser()
    page = lms.launch(browser, hint, LaunchPlan(person, **plan))
    done = hand_off(page).new_account(lms, browser, follow_redirects=False)
    return browser, done


def class_roles(lms):
    from app.accounts.models import User
    from app.classes.models import ClassMember

    with lms.db() as db:
        return dict(db.execute(select(User.username, ClassMember.role).join(User, User.id == ClassMember.user_id)).all())


def test_instructor_syncs_the_roster(lms):
    teacher = Person("lms-t", "Teacher", [INSTRUCTOR])
    ann, ben, cho = Person("lms-ann", "Ann", [LEARNER]), Person("lms-ben", "Ben", [LEARNER]), \
        Person("lms-cho", "Cho", [INSTRUCTOR, TEACHING_ASSISTANT])
    browser, landed = sign_in_through_lms(lms, "t", teacher)
    # an instructor's launch without a resource lands on the course's page
    course = landed.headers["location"]
    assert re.fullmatch(r"/en/lti/courses/\d+", course)
    sign_in_through_lms(lms, "ann", ann)
    sign_in_through_lms(lms, "cho", cho)
    lms.state.roster["course-101"] = [teacher, ann, ben, Person("lms-cho", "Cho", [LEARNER])]

    page = browser.get(lms.tool + course)
    synced = browser.post(lms.tool + course + "/roster", data={"csrf_token": CSRF.search(page.text).group(1)},
                          follow_redirects=True)
    assert synced.status_code == 200
    assert 'data-synced="4"' in synced.text
    assert 'data-member="lms-ben" data-role="learner" data-active="1"' in synced.text  # recorded, no account yet
    assert "not launched yet" in synced.text
    # the LMS now says Cho is a learner: the class follows
    assert class_roles(lms) == {"Teacher": "instructor", "Ann": "learner", "Cho": "learner"}

    # Ann drops the course in the LMS; Ben launches for the first time and joins the class at once
    lms.state.roster["course-101"] = [teacher, ben, Person("lms-cho", "Cho", [LEARNER])]
    sign_in_through_lms(lms, "ben", ben)
    page = browser.get(lms.tool + course)
    browser.post(lms.tool + course + "/roster", data={"csrf_token": CSRF.search(page.text).group(1)})
    assert class_roles(lms) == {"Teacher": "instructor", "Ben": "learner", "Cho": "learner"}
    assert 'data-member="lms-ann" data-role="learner" data-active="0"' in browser.get(lms.tool + course).text


def test_learners_cannot_see_or_sync_the_course_page(lms):
    browser, landed = sign_in_through_lms(lms, "t", Person("lms-t", "Teacher", [INSTRUCTOR]))
    course = landed.headers["location"]
    learner, _ = sign_in_through_lms(lms, "ann", Person("lms-ann", "Ann", [LEARNER]))
    assert learner.get(lms.tool + course).status_code == 404
    csrf = CSRF.search(learner.get(lms.tool + "/en/").text)
    token = csrf.group(1) if csrf else ""
    assert learner.post(lms.tool + course + "/roster", data={"csrf_token": token}).status_code == 404
    # a teaching assistant (grader) reads the roster but cannot sync it
    ta, _ = sign_in_through_lms(lms, "ta", Person("lms-ta", "Tae", [INSTRUCTOR, TEACHING_ASSISTANT]))
    page = ta.get(lms.tool + course)
    assert page.status_code == 200 and "data-sync-roster" not in page.text


def test_a_failing_roster_service_gives_a_clear_answer(lms):
    browser, landed = sign_in_through_lms(lms, "t", Person("lms-t", "Teacher", [INSTRUCTOR]))
    course = landed.headers["location"]
    from app.lti.models import LtiContext
    with lms.db() as db:  # the LMS moved its service somewhere that is not there
        db.scalar(select(LtiContext)).memberships_url = f"{lms.url}/nowhere"
        db.commit()
    course = course.replace("/en/", "/ko/")
    page = browser.get(lms.tool + course)
    answer = browser.post(lms.tool + course + "/roster", data={"csrf_token": CSRF.search(page.text).group(1)})
    assert answer.status_code == 502
    assert "LMS에서 명단을 읽지 못했어요." in answer.text


def test_the_course_page_is_titled_by_its_class(lms):
    browser, landed = sign_in_through_lms(lms, "t", Person("lms-t", "Teacher", [INSTRUCTOR]))
    page = browser.get(lms.tool + landed.headers["location"])
    assert re.search(r"<title>CUDA 101 · [^<]+</title>", page.text)
    # the class's own pages are one click away, and the instructor may open them
    gradebook = re.search(r'href="(/en/classes/\d+/gradebook)" data-gradebook-link', page.text).group(1)
    assert browser.get(lms.tool + gradebook).status_code == 200
    assert page.text.count("data-lms-grades") + page.text.count("Nothing sent yet") == 1
