"""OIDC login -> launch -> signed in on the right page, against an independent platform
(lti1p3platform) over real HTTP, on SQLite and PostgreSQL."""
from __future__ import annotations

import re

from sqlalchemy import select

from tests.lti.handoff import hand_off
from tests.lti.platform import INSTRUCTOR, LEARNER, TEACHING_ASSISTANT, LaunchPlan, Person


def test_first_launch_creates_an_account_and_opens_the_lesson_signed_in(lms):
    browser = lms.browser()
    page = lms.launch(browser, "alice", LaunchPlan(Person("lms-alice", "Alice Kim", [LEARNER]),
                                                   custom={"resource": "lesson:naive-vs-tiled-gemm"}))
    assert page.status_code == 200
    # the launch page may be framed by the LMS, and only the hand-off link is on it
    assert "frame-ancestors https:" in page.headers["content-security-policy"]
    assert "x-frame-options" not in page.headers
    step = hand_off(page)
    assert step.action == "/en/lti/continue"
    choose = step.open(lms, browser)
    assert choose.status_code == 200 and "Create a new account" in choose.text
    done = step.new_account(lms, browser, follow_redirects=False)
    assert done.status_code == 303
    assert done.headers["location"] == "/en/lessons/naive-vs-tiled-gemm"
    lesson = browser.get(lms.tool + "/en/lessons/naive-vs-tiled-gemm")
    assert lesson.status_code == 200 and "Alice.Kim" in lesson.text
    # the hand-off works once
    again = step.new_account(lms, browser, follow_redirects=False)
    assert again.status_code == 410


def test_second_launch_signs_the_same_account_in_without_asking(lms):
    browser = lms.browser()
    plan = LaunchPlan(Person("lms-bob", "Bob", [LEARNER]))
    first = lms.launch(browser, "bob", plan)
    hand_off(first).new_account(lms, browser)
    other_browser = lms.browser()
    second = lms.launch(other_browser, "bob2", plan)
    went = hand_off(second).open(lms, other_browser, follow_redirects=False)
    assert went.status_code == 303 and went.headers["location"] == "/en/"
    home = other_browser.get(lms.tool + "/en/")
    assert "Bob" in home.text
    from app.accounts.models import User
    with lms.db() as db:
        assert db.scalars(select(User.username)).all() == ["Bob"]


def test_korean_locale_opens_the_korean_page(lms):
    browser = lms.browser()
    page = lms.launch(browser, "min", LaunchPlan(Person("lms-min", "Min", [LEARNER], locale="ko-KR"),
                                                 custom={"resource": "lesson:naive-vs-tiled-gemm"}))
    assert "LMS에서 열었어요" in page.text
    step = hand_off(page)
    assert step.action == "/ko/lti/continue"
    done = step.new_account(lms, browser, follow_redirects=False)
    assert done.headers["location"] == "/ko/lessons/naive-vs-tiled-gemm"


def test_a_launch_into_a_new_window_goes_straight_on(lms):
    browser = lms.browser()
    page = lms.launch(browser, "win", LaunchPlan(Person("lms-win", "Win", [LEARNER]), document_target="window"))
    # the hand-off form submits itself (our script), and still carries the token in its body
    assert page.status_code == 200 and "data-auto-submit" in page.text and 'target="_blank"' not in page.text
    assert hand_off(page).open(lms, browser).status_code == 200


def test_roles_hold_for_that_course_only(lms):
    from app.accounts.models import User
    from app.lti.models import LtiMember

    people = [("teach", Person("lms-t", "Teacher", [INSTRUCTOR])),
              ("ta", Person("lms-ta", "Assistant", [INSTRUCTOR, TEACHING_ASSISTANT])),
              ("learn", Person("lms-l", "Learner", [LEARNER]))]
    for hint, person in people:
        browser = lms.browser()
        page = lms.launch(browser, hint, LaunchPlan(person))
        hand_off(page).new_account(lms, browser)
    with lms.db() as db:
        roles = dict(db.execute(select(LtiMember.subject, LtiMember.role)).all())
        site_roles = set(db.scalars(select(User.role)))
    assert roles == {"lms-t": "instructor", "lms-ta": "grader", "lms-l": "learner"}
    assert site_roles == {"learner"}  # nobody became a site-wide instructor or grader


def test_an_existing_account_is_linked_only_after_signing_in_to_it(lms):
    from tests.accounts.conftest import PASSWORD

    browser = lms.browser()
    # the person already has an account here, with the same name as in the LMS
    signup_page = browser.get(lms.tool + "/en/signup")
    token = re.search(r'name="csrf_token" value="([^"]+)"', signup_page.text).group(1)
    browser.post(lms.tool + "/en/signup", data={"csrf_token": token, "username": "carol", "password": PASSWORD,
                                                "password2": PASSWORD, "tz": "UTC", "next": "/en/"})
    page = lms.launch(browser, "carol", LaunchPlan(Person("lms-carol", "carol", [LEARNER])))
    step = hand_off(page)
    choose = step.open(lms, browser)
    # nothing was merged by the matching name: the page asks
    assert "Link my LMS account to carol" in choose.text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', choose.text).group(1)
    done = step.link(lms, browser, csrf, follow_redirects=False)
    assert done.status_code == 303
    from app.accounts.models import User
    from app.lti.models import LtiIdentity
    with lms.db() as db:
        linked = db.scalar(select(User.username).join(LtiIdentity, LtiIdentity.user_id == User.id))
        assert linked == "carol"
        assert db.scalars(select(User.username)).all() == ["carol"]


def test_a_learner_who_is_signed_out_signs_in_and_comes_back_to_link(lms):
    from tests.accounts.conftest import PASSWORD

    first = lms.browser()  # the account was made earlier, elsewhere
    signup_page = first.get(lms.tool + "/en/signup")
    token = re.search(r'name="csrf_token" value="([^"]+)"', signup_page.text).group(1)
    first.post(lms.tool + "/en/signup", data={"csrf_token": token, "username": "dana", "password": PASSWORD,
                                              "password2": PASSWORD, "tz": "UTC", "next": "/en/"})
    browser = lms.browser()
    step = hand_off(lms.launch(browser, "dana", LaunchPlan(Person("lms-dana", "Dana K", [LEARNER]))))
    choose = step.open(lms, browser)
    assert 'href="/en/signin?next=/en/lti/continue"' in choose.text
    signin = browser.get(lms.tool + "/en/signin?next=/en/lti/continue")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', signin.text).group(1)
    back = browser.post(lms.tool + "/en/signin", data={"csrf_token": csrf, "username": "dana", "password": PASSWORD,
                                                       "next": "/en/lti/continue"}, follow_redirects=True)
    assert "Link my LMS account to dana" in back.text  # the pending hand-off waited in its cookie
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', back.text).group(1)
    assert step.link(lms, browser, csrf, follow_redirects=False).status_code == 303
    from app.accounts.models import User
    from app.lti.models import LtiIdentity
    with lms.db() as db:
        assert db.scalar(select(User.username).join(LtiIdentity, LtiIdentity.user_id == User.id)) == "dana"


def test_linking_without_the_accounts_own_csrf_token_is_refused(lms):
    browser = lms.browser()
    page = lms.launch(browser, "eve", LaunchPlan(Person("lms-eve", "Eve", [LEARNER])))
    step = hand_off(page)
    from tests.accounts.conftest import PASSWORD
    signup_page = browser.get(lms.tool + "/en/signup")
    token = re.search(r'name="csrf_token" value="([^"]+)"', signup_page.text).group(1)
    browser.post(lms.tool + "/en/signup", data={"csrf_token": token, "username": "victim", "password": PASSWORD,
                                                "password2": PASSWORD, "tz": "UTC", "next": "/en/"})
    forged = step.link(lms, browser, "guess", follow_redirects=False)
    assert forged.status_code == 403


def test_the_instructors_first_launch_creates_the_class_and_earlier_learners_join_it(lms):
    from app.accounts.models import User
    from app.classes.models import ClassMember, CourseClass

    early = lms.browser()
    page = lms.launch(early, "early", LaunchPlan(Person("lms-early", "Early", [LEARNER])))
    hand_off(page).new_account(lms, early)
    with lms.db() as db:  # a learner's launch creates no class
        assert db.scalar(select(CourseClass.id)) is None
    for hint, person in [("teach", Person("lms-t", "Teacher", [INSTRUCTOR])),
                         ("ta", Person("lms-ta", "Assistant", [INSTRUCTOR, TEACHING_ASSISTANT])),
                         ("late", Person("lms-late", "Late", [LEARNER]))]:
        browser = lms.browser()
        page = lms.launch(browser, hint, LaunchPlan(person))
        hand_off(page).new_account(lms, browser)
    with lms.db() as db:
        [course] = db.scalars(select(CourseClass)).all()
        assert course.name == "CUDA 101"
        assert course.external_id.startswith("lti:") and course.external_id.endswith(":course-101")
        roles = dict(db.execute(select(User.username, ClassMember.role).join(User, User.id == ClassMember.user_id)
                                .where(ClassMember.class_id == course.id)).all())
    assert roles == {"Teacher": "instructor", "Assistant": "grader", "Early": "learner", "Late": "learner"}
