"""Deep Linking 2.0: the instructor picks a lesson in our picker, our signed answer goes back to the
platform (lti1p3platform checks it against our JWKS over HTTP), and a learner's launch of the stored
link opens that lesson."""
from __future__ import annotations

import html
import re

from tests.lti.handoff import hand_off
from tests.lti.platform import INSTRUCTOR, LEARNER, LaunchPlan, Person

TOKEN = re.compile(r'name="token" value="([^"]+)"')


def test_instructor_picks_a_lesson_and_the_platform_stores_the_link(lms):
    browser = lms.browser()
    picker = lms.launch(browser, "teacher", LaunchPlan(Person("lms-t", "Teacher", [INSTRUCTOR]), deep_link=True))
    assert picker.status_code == 200
    assert "frame-ancestors https:" in picker.headers["content-security-policy"]
    assert 'value="lesson:naive-vs-tiled-gemm"' in picker.text
    token = TOKEN.search(picker.text).group(1)
    answer = browser.post(lms.tool + "/lti/deep-link", data={"token": token, "resource": "lesson:naive-vs-tiled-gemm"})
    assert answer.status_code == 200
    # the form may post to the LMS (and only there besides us)
    assert f"form-action 'self' {lms.url}" in answer.headers["content-security-policy"]
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', answer.text).group(1))
    jwt_value = re.search(r'name="JWT" value="([^"]+)"', answer.text).group(1)
    assert action == f"{lms.url}/deep-link-return"
    stored = browser.post(action, data={"JWT": jwt_value})
    assert stored.status_code == 200, stored.text
    [item] = lms.state.deep_link_items
    assert item["type"] == "ltiResourceLink"
    assert item["url"] == f"{lms.tool}/lti/launch"
    assert item["custom"] == {"resource": "lesson:naive-vs-tiled-gemm"}
    # the picker's token worked once
    again = browser.post(lms.tool + "/lti/deep-link", data={"token": token, "resource": "lesson:naive-vs-tiled-gemm"})
    assert again.status_code == 410

    learner = lms.browser()
    page = lms.launch(learner, "learner", LaunchPlan(Person("lms-l", "Lee", [LEARNER]), custom=item["custom"]))
    done = hand_off(page).new_account(lms, learner, follow_redirects=False)
    assert done.headers["location"] == "/en/lessons/naive-vs-tiled-gemm"


def test_a_pick_that_is_not_offered_is_refused(lms):
    browser = lms.browser()
    picker = lms.launch(browser, "teacher", LaunchPlan(Person("lms-t", "Teacher", [INSTRUCTOR]), deep_link=True))
    token = TOKEN.search(picker.text).group(1)
    answer = browser.post(lms.tool + "/lti/deep-link", data={"token": token, "resource": "lesson:nope"},
                          headers={"Accept-Language": "en"})
    assert answer.status_code == 404
    assert "does not exist (any more)" in answer.text
    assert lms.state.deep_link_items == []


def test_a_link_to_a_missing_lesson_is_refused_at_launch(lms):
    page = lms.launch(lms.browser(), "l", LaunchPlan(Person("lms-l", "Lee", [LEARNER]),
                                                     custom={"resource": "lesson:gone"}))
    assert page.status_code == 404
    assert "does not exist (any more)" in page.text


def test_instructor_links_an_assignment_of_the_class_and_learners_open_its_first_item(lms):
    import datetime as dt

    from sqlalchemy import select

    from app.classes import assignments
    from app.classes.models import CourseClass

    teacher = Person("lms-t", "Teacher", [INSTRUCTOR])
    browser = lms.browser()  # the instructor's first launch creates the class
    hand_off(lms.launch(browser, "t", LaunchPlan(teacher))).new_account(lms, browser)
    with lms.db() as db:
        row = assignments.create_assignment(
            db, db.scalar(select(CourseClass)), title="Week 1", opens_at=dt.datetime(2026, 1, 1),
            due_at=dt.datetime(2099, 1, 1), exercises=["gemm"], known_lessons=set(), known_exercises={"gemm": ()})
        db.commit()
        assignment = f"assignment:{row.id}"
    picker = lms.launch(browser, "t2", LaunchPlan(teacher, deep_link=True, context_id="course-101"))
    assert f'value="{assignment}">Assignment: Week 1<' in picker.text
    answer = browser.post(lms.tool + "/lti/deep-link", data={"token": TOKEN.search(picker.text).group(1),
                                                            "resource": assignment})
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', answer.text).group(1))
    browser.post(action, data={"JWT": re.search(r'name="JWT" value="([^"]+)"', answer.text).group(1)})
    [item] = lms.state.deep_link_items
    assert item["custom"] == {"resource": assignment}

    learner = lms.browser()
    page = lms.launch(learner, "l", LaunchPlan(Person("lms-l", "Lee", [LEARNER]), custom=item["custom"]))
    done = hand_off(page).new_account(lms, learner, follow_redirects=False)
    assert done.headers["location"] == "/en/lessons/naive-vs-tiled-gemm"  # the lesson that holds gemm
    # the same link copied into another LMS course names an assignment that is not that course's
    other = lms.launch(lms.browser(), "o", LaunchPlan(Person("lms-o", "Oh", [LEARNER]), custom=item["custom"],
                                                      context_id="course-202"))
    assert other.status_code == 404
