"""A class in Chromium, in both languages: an instructor creates a class and an assignment due in the
class's zone, turns its leaderboards on; a learner joins by the invite link, sees the assignment and
its countdown on the course page and above the exercise, submits from the panel (the GPU step stubbed:
tests/e2e/fake_gpu_app.py), and both see the gradebook and the board update. The learner's pages are
checked at a phone's width; screenshots go to test-artifacts/."""
from __future__ import annotations

import datetime as dt
import re

import pytest

from tests.e2e.test_a11y import _check, axe_source  # noqa: F401  (axe_source is a fixture)
from tests.panel.support import LiveServer, add_user, sign_in

pytestmark = pytest.mark.e2e
TEXT = {
    "en": {"created": "Class created.", "joined": "You joined the class.", "mine": "Your assignments"},
    "ko": {"created": "반을 만들었어요.", "joined": "반에 들어왔어요.", "mine": "내 과제"},
}


def create_class(page, name: str) -> None:
    """Fill in the new-class form on /{lang}/classes (term 2026, Seoul time) and wait for its confirmation."""
    form = page.locator("[data-create-class]")
    form.locator("input[name=name]").fill(name)
    form.locator("input[name=term]").fill("2026")
    form.locator("input[name=tz]").fill("Asia/Seoul")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("[data-done]")


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("classes-e2e"), app="tests.e2e.fake_gpu_app:create", factory="1",
                        dispatcher_gpu="on")
    yield server
    server.stop()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_instructor_and_learner_run_a_class(browser, live, artifacts, axe_source, lang):  # noqa: F811
    teacher_name, learner_name = f"kim-{lang}", f"lee-{lang}"
    add_user(live.app, teacher_name, "instructor")
    add_user(live.app, learner_name)

    teacher = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    sign_in(teacher, live.url, teacher_name, lang)
    teacher.locator("[data-classes-link]").first.click()
    create_class(teacher, f"GPU 101 {lang}")
    assert TEXT[lang]["created"] in teacher.locator("[data-done]").inner_text()

    settings = teacher.locator("[data-settings]")
    settings.locator("input[name=board_enabled]").check()
    settings.locator("button[type=submit]").click()
    teacher.wait_for_selector("[data-done]")

    seoul = dt.timezone(dt.timedelta(hours=9))
    due = dt.datetime.now(seoul) + dt.timedelta(days=2)
    new = teacher.locator("[data-new-assignment]")
    new.locator("input[name=title]").fill("Week 1")
    new.locator("input[name=opens_at]").fill((due - dt.timedelta(days=7)).strftime("%Y-%m-%dT09:00"))
    new.locator("input[name=due_at]").fill(due.strftime("%Y-%m-%dT23:59"))
    new.locator("input[name=exercises][value=gemm]").check()
    new.locator("button[type=submit]").click()
    teacher.wait_for_selector("[data-assignment]")
    assert f"{due.strftime('%Y-%m-%d')} 23:59 KST" in teacher.locator("[data-assignment]").inner_text()
    violations = {"class (instructor)": _check(teacher, axe_source)}
    insight = live.url + teacher.locator("[data-insight-link]").first.get_attribute("href")
    link = teacher.locator("[data-invite-link]").inner_text()
    class_url = teacher.url.split("?")[0]

    phone = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True)
    learner = phone.new_page()
    sign_in(learner, live.url, learner_name, lang)
    assert link.startswith(f"{live.url}/{lang}/join/")  # the class's notices are in the language it was made in
    learner.goto(link)
    learner.locator("[data-join]").tap()
    learner.wait_for_selector("[data-done]")
    assert TEXT[lang]["joined"] in learner.locator("[data-done]").inner_text()
    assert learner.locator("[data-my-assignment] [data-left-item=gemm]").count() == 1
    learner.wait_for_function("() => document.querySelector('[data-countdown]').textContent.length > 2")
    learner.screenshot(path=str(artifacts / f"class-learner-phone-{lang}.png"), full_page=True)
    violations["class (learner, phone)"] = _check(learner, axe_source)
    assert learner.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0

    # the course page and the exercise's panel show what is left, with the countdown
    learner.goto(f"{live.url}/{lang}/")
    learner.wait_for_selector("[data-my-assignments]:not([hidden]) [data-left-item=gemm]")
    assert TEXT[lang]["mine"] in learner.locator("[data-my-assignments]").inner_text()
    learner.goto(f"{live.url}/{lang}/lessons/naive-vs-tiled-gemm")
    box = learner.locator("[data-my-assignments][data-exercise=gemm]")
    box.locator("[data-left-item=gemm]").wait_for()
    panel = learner.locator("[data-panel]")
    panel.scroll_into_view_if_needed()
    learner.wait_for_selector("[data-panel][data-ready]")
    learner.locator("[data-submit]").tap()
    learner.wait_for_selector("[data-result] [data-verdict=PASSED]", timeout=90000)
    learner.reload()
    box.locator("[data-all-done]").wait_for()

    # the instructor's gradebook and the board
    teacher.goto(f"{class_url}/gradebook")
    row = teacher.locator(f"[data-learner='{learner_name}']")
    assert row.locator("[data-score]").first.inner_text() == "1/1"
    teacher.screenshot(path=str(artifacts / f"class-gradebook-{lang}.png"), full_page=True)
    violations["gradebook"] = _check(teacher, axe_source)
    teacher.goto(f"{class_url}/boards/gemm")
    first = teacher.locator("[data-rank='1']")
    assert first.get_attribute("data-name") == learner_name
    assert "1.80" in first.inner_text() and "fake, tests" in first.inner_text()
    assert teacher.locator("[data-strike]").count() == 1  # the instructor may strike it
    violations["board (instructor)"] = _check(teacher, axe_source)
    teacher.goto(insight)
    assert teacher.locator("[data-insight-exercise=gemm] [data-passed]").inner_text() == "1"
    violations["insight"] = _check(teacher, axe_source)
    teacher.goto(f"{live.url}/{lang}/classes")
    violations["my classes"] = _check(teacher, axe_source)

    learner.goto(f"{class_url}/boards/gemm")
    assert learner.locator("[data-rank='1']").get_attribute("data-name") == learner_name
    assert learner.locator("[data-strike]").count() == 0
    assert re.search(r"1\.80", learner.locator("[data-board]").inner_text())
    learner.screenshot(path=str(artifacts / f"class-board-phone-{lang}.png"), full_page=True)
    violations["board (learner, phone)"] = _check(learner, axe_source)
    assert {page: found for page, found in violations.items() if found} == {}

    # the instructor's pages on a phone: nothing scrolls sideways
    small = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True).new_page()
    sign_in(small, live.url, teacher_name, lang)
    for url in [class_url + path for path in ("", "/gradebook", "/boards/gemm", "/submissions")] + [insight]:
        small.goto(url)
        assert small.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0, url
    small.screenshot(path=str(artifacts / f"class-submissions-phone-{lang}.png"), full_page=True)
    small.context.close()
    teacher.context.close()
    phone.close()
