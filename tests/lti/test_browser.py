"""What a learner sees, in Chromium at a phone's width, in both languages: the LMS shows our launch
page inside its iframe, "Open in a new window" opens the course in its own window, the learner
creates an account and lands on the lesson signed in."""
from __future__ import annotations

import pytest

from tests.lti.platform import LEARNER, LaunchPlan, Person

pytestmark = pytest.mark.e2e
PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("locale, texts", [
    ("en-US", ("Opened from your LMS", "Open in a new window", "Create a new account")),
    ("ko-KR", ("LMS에서 열었어요", "새 창에서 열기", "새 계정 만들기")),
])
def test_a_learner_launches_from_the_lms_iframe_on_a_phone(lms, browser, locale, texts):
    opened, button, create = texts
    lms.state.plans["min"] = LaunchPlan(Person("lms-min", "Min Park", [LEARNER], locale=locale),
                                        custom={"resource": "lesson:naive-vs-tiled-gemm"})
    context = browser.new_context(viewport=PHONE, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{lms.url}/course/min")
    frame = page.frame_locator("#tool")
    frame.locator("[data-lti-launch] h1").wait_for()
    assert frame.locator("[data-lti-launch] h1").inner_text() == opened  # shown inside the LMS's frame
    with page.expect_popup() as popup_info:
        frame.get_by_role("button", name=button).click()
    course = popup_info.value
    course.wait_for_load_state()
    assert course.locator("[data-lti-choose]").is_visible()
    width = course.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]  # nothing wider than the phone
    course.get_by_role("button", name=create).click()
    lang = "ko" if locale.startswith("ko") else "en"
    course.wait_for_url(f"{lms.tool}/{lang}/lessons/naive-vs-tiled-gemm")
    assert course.locator("html").get_attribute("lang") == lang
    assert "Min.Park" in course.content()  # signed in as the new account
    assert errors == []
    context.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_refused_launch_is_readable_inside_the_lms_frame(lms, browser):
    lms.state.plans["x"] = LaunchPlan(Person("lms-x", "X", [LEARNER]), deployment_id="not-registered")
    context = browser.new_context(viewport=PHONE, locale="ko-KR")
    page = context.new_page()
    page.goto(f"{lms.url}/course/x")
    message = page.frame_locator("#tool").locator("[role=alert]")
    message.wait_for()
    assert message.inner_text() == "이 도구 배포는 여기에 등록되어 있지 않아요. 관리자에게 배포 ID 추가를 요청해 주세요."
    context.close()
