"""A lesson on a 360 px phone in Chromium: the contents fold above the text with a jump to the exercise;
the panel drops the keyboard hints, keeps each launch field's x/y/z on one line and shows a tall editor;
both languages; axe-core finds nothing serious."""
from __future__ import annotations

import pytest

from tests.e2e.test_override_form import _axe
from tests.panel.support import LiveServer, add_user, sign_in

pytestmark = pytest.mark.e2e
LESSON = "naive-vs-tiled-gemm"
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("phone-first-hour"))
    add_user(server.app, "phone_reader")
    yield server
    server.stop()


@pytest.mark.parametrize(("lang", "contents"), [("en", "Contents"), ("ko", "목차")])
def test_contents_and_exercise_are_near_the_top_on_a_phone(browser, live, lang, contents):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{live.url}/{lang}/lessons/{LESSON}")
    compact = page.locator("[data-toc-compact]")
    assert compact.is_visible() and compact.bounding_box()["y"] < 1200  # within the first screens, not ~21 down
    summary = compact.locator("summary")
    assert summary.inner_text().strip() == contents
    assert not compact.locator("ol").is_visible()
    summary.click()
    links = compact.locator("ol a")
    assert links.count() >= 8 and links.first.is_visible()
    assert _axe(page) == []
    compact.locator("[data-jump-exercise]").click()
    page.wait_for_timeout(300)
    top = page.evaluate("document.getElementById('exercise').getBoundingClientRect().top")
    assert abs(top) < 100 and page.evaluate("window.scrollY") > 5000
    context.close()


def test_the_panel_fits_a_phone(browser, live):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    sign_in(page, live.url, "phone_reader")
    page.goto(f"{live.url}/en/lessons/{LESSON}")
    panel = page.locator("[data-panel]")
    panel.scroll_into_view_if_needed()
    page.wait_for_selector("[data-panel][data-ready]")
    assert not panel.locator("[data-submit] .xpanel__kbd").first.is_visible()  # no "Ctrl ↵" without a keyboard
    tops = [panel.locator(f"input[name={n}]").bounding_box()["y"] for n in ("bx", "by", "bz")]
    assert max(tops) - min(tops) < 2  # x, y and z on one line
    assert panel.locator(".cm-editor").bounding_box()["height"] >= 400  # about 20 lines, not 7
    context.close()


def test_the_side_contents_come_before_the_text_but_show_on_the_right(browser, live):
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    page = context.new_page()
    page.goto(f"{live.url}/ko/lessons/{LESSON}")
    order = page.evaluate("document.querySelector('.toc').compareDocumentPosition(document.querySelector('article.lesson'))")
    assert order & 4  # the article FOLLOWS the contents in the source
    toc, article = page.locator(".toc").bounding_box(), page.locator("article.lesson").bounding_box()
    assert toc["x"] > article["x"] + article["width"] - 1 and toc["y"] < 400  # on the right, at the top
    context.close()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_lesson_figures_keep_readable_labels_on_a_phone(browser, live, lang):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{live.url}/{lang}/lessons/{LESSON}")
    figure = page.locator(".figure-scroll", has=page.locator("img[src*='04-roofline']"))
    figure.scroll_into_view_if_needed()
    width = figure.locator("img").bounding_box()["width"]
    assert width * 10 / 760 >= 8.5  # its 10-unit labels drawn at 8.5 px or more (they were about 4.3)
    assert figure.evaluate("el => el.scrollWidth > el.clientWidth && el.tabIndex === 0")
    assert _axe(page) == []
    context.close()
