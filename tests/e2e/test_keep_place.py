"""Nobody loses their place, in Chromium against a real uvicorn, on a desktop and a 360 px phone:
switching language mid-lesson lands on the same section (one id per section in both languages), and
"Sign in to submit" / the comments' "Sign in" return to the exercise / the comments, not the top."""
from __future__ import annotations

import re

import pytest

from tests.panel.support import LiveServer, add_user

pytestmark = pytest.mark.e2e
LESSON = "naive-vs-tiled-gemm"
SECTION = "tiled-gemm-share-the-loads"  # "## Tiled GEMM: share the loads" / "## Tiled GEMM: load를 나눠 쓰기"
VIEWPORTS = {"desktop": {"viewport": {"width": 1280, "height": 900}},
             "phone": {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True,
                       "has_touch": True}}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("keep-place"))
    add_user(server.app, "reader")
    yield server
    server.stop()


def _heading_top(page, section_id: str) -> float:
    return page.evaluate(f"document.getElementById('{section_id}').getBoundingClientRect().top")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize(("start", "other"), [("ko", "en"), ("en", "ko")])
def test_the_language_switch_keeps_the_section(browser, live, viewport, start, other):
    context = browser.new_context(**VIEWPORTS[viewport])
    page = context.new_page()
    page.goto(f"{live.url}/{start}/lessons/{LESSON}")
    page.wait_for_load_state("networkidle")
    # a little way into the section
    page.evaluate(f"window.scrollTo({{top: document.getElementById('{SECTION}').getBoundingClientRect().top"
                  " + window.scrollY + 150, behavior: 'instant'})")
    assert page.evaluate("window.scrollY") > 2000
    # clicked where it is on the screen: Playwright's own click would first scroll the sticky header's link "into view"
    box = page.locator(f"[data-lang-switch={other}]").bounding_box()
    with page.expect_navigation(url=re.compile(rf"/{other}/lessons/{LESSON}#{SECTION}$")):
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.scrollY") > 2000  # not the top of the page
    assert abs(_heading_top(page, SECTION)) < 120  # the section's heading is where the screen starts
    context.close()


def test_sections_have_the_same_ids_in_both_languages(browser, live):
    context = browser.new_context()
    page = context.new_page()
    ids = {}
    for lang in ("ko", "en"):
        page.goto(f"{live.url}/{lang}/lessons/{LESSON}")
        ids[lang] = page.eval_on_selector_all(".prose h2[id], .prose h3[id]", "els => els.map(e => e.id)")
    assert ids["ko"] == ids["en"] and SECTION in ids["ko"] and len(ids["ko"]) >= 8
    context.close()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize(("lang", "link", "target"), [
    ("ko", "[data-signin-to-submit]", "exercise"), ("en", "[data-signin-to-submit]", "exercise"),
    ("en", "[data-signin-to-comment]", "comments")])
def test_signing_in_returns_to_the_exercise_or_the_comments(browser, live, viewport, lang, link, target):
    context = browser.new_context(**VIEWPORTS[viewport])
    page = context.new_page()
    page.goto(f"{live.url}/{lang}/lessons/{LESSON}")
    page.locator(link).scroll_into_view_if_needed()
    with page.expect_navigation():
        page.locator(link).click()
    assert page.url.endswith(f"/{lang}/signin?next=/{lang}/lessons/{LESSON}%23{target}"), page.url
    page.fill("input[name=username]", "reader")
    page.fill("input[name=password]", "correct horse battery")
    with page.expect_navigation(url=re.compile(rf"/{lang}/lessons/{LESSON}#{target}$")):
        page.locator("form input[name=password]").press("Enter")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.scrollY") > 5000  # at the exercise or the comments, far below the top
    # its start is on the upper half of the screen (the comments, near the page's end, cannot reach the top)
    top, height = page.evaluate(f"[document.getElementById('{target}').getBoundingClientRect().top, innerHeight]")
    assert -50 < top < height / 2
    context.close()
