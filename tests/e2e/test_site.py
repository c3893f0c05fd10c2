"""What a reader sees, in a real browser: index, language switch, lesson 04, phone layout."""
import re

import pytest

pytestmark = pytest.mark.e2e

LESSON_04 = "naive-vs-tiled-gemm"


def _new_page(browser, **kwargs):
    context = browser.new_context(**kwargs)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


def test_index_switch_language_and_lesson_04(browser, server_url, artifacts):
    context, page, errors = _new_page(browser, viewport={"width": 1280, "height": 900}, locale="ko-KR",
                                      extra_http_headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    page.goto(server_url + "/")
    assert page.url.endswith("/ko/")
    assert page.locator("h1").inner_text().startswith("CUDA 행렬 커널")
    assert page.locator(".lesson-list:not(.lesson-list--further) .lesson-card").count() == 5   # the track
    assert page.locator(".lesson-list--further .lesson-card").count() == 2                     # going further
    page.screenshot(path=str(artifacts / "index-ko-desktop.png"), full_page=True)

    page.locator("[data-lang-switch=en]").click()
    page.wait_for_url(re.compile(r"/en/$"))
    assert "CUDA matrix kernels" in page.locator("h1").inner_text()
    assert any(c["name"] == "lang" and c["value"] == "en" for c in context.cookies())
    page.screenshot(path=str(artifacts / "index-en-desktop.png"), full_page=True)

    page.locator(f'a[href="/en/lessons/{LESSON_04}"]').click()
    page.wait_for_url(re.compile(LESSON_04))
    header = page.locator(".lesson__header")
    assert "Lesson 04 of 07" in header.locator(".eyebrow").inner_text()
    assert page.locator("h1").is_visible()
    strip = page.locator(".strip")
    assert strip.is_visible()
    strip_text = " ".join(strip.inner_text().split())
    assert "Level 0" in strip_text and "0/7 lessons" in strip_text and "0/12 achievements" in strip_text
    code = page.locator("figure.code").first
    code.scroll_into_view_if_needed()
    assert code.is_visible()
    assert code.locator(".code__lang").inner_text().endswith("cuda")
    copy = code.locator(".code__copy")
    assert copy.is_visible()
    page.screenshot(path=str(artifacts / "lesson04-en-desktop.png"), full_page=True)

    # The switch keeps us on the same lesson (at the section on the screen: a #fragment).
    page.locator("[data-lang-switch=ko]").click()
    page.wait_for_url(re.compile(rf"/ko/lessons/{LESSON_04}(#[\w-]+)?$"))
    assert "레슨 04 / 07" in page.locator(".lesson__header .eyebrow").inner_text()
    page.screenshot(path=str(artifacts / "lesson04-ko-desktop.png"), full_page=True)
    assert errors == []
    context.close()


def test_copy_button_and_mark_complete(browser, server_url):
    context, page, errors = _new_page(browser, viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server_url)
    page.goto(f"{server_url}/en/lessons/{LESSON_04}")
    copy = page.locator(".code__copy").first
    copy.click()
    page.wait_for_selector(".code__copy.is-copied")  # a selector wait: string predicates are eval, which the CSP forbids
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == page.locator("figure.code pre code").first.inner_text().strip()

    button = page.locator("[data-mark-complete]")
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    assert " ".join(page.locator(".strip").inner_text().split()).count("1/7 lessons") == 1
    page.goto(f"{server_url}/en/")
    assert page.locator(f'[data-lesson-slug="{LESSON_04}"] .mark--done').count() == 1
    assert errors == []
    context.close()


def test_theme_toggle_is_remembered(browser, server_url, artifacts):
    context, page, _ = _new_page(browser, viewport={"width": 1280, "height": 900}, color_scheme="light")
    page.goto(f"{server_url}/ko/lessons/{LESSON_04}")
    page.locator("[data-theme-toggle]").click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.screenshot(path=str(artifacts / "lesson04-ko-dark.png"), full_page=False)
    context.close()


def test_phone_layout_does_not_scroll_sideways(browser, server_url, artifacts):
    context, page, errors = _new_page(browser, viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                      is_mobile=True, has_touch=True)
    page.goto(f"{server_url}/ko/lessons/{LESSON_04}")
    assert page.locator("h1").is_visible()
    # Wide code and tables scroll inside their own boxes; the page itself never does.
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    page.screenshot(path=str(artifacts / "lesson04-ko-phone.png"), full_page=True)
    page.goto(f"{server_url}/en/")
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    page.screenshot(path=str(artifacts / "index-en-phone.png"), full_page=True)
    assert errors == []
    context.close()


def test_not_found_page_in_browser(browser, server_url):
    context, page, _ = _new_page(browser)
    response = page.goto(f"{server_url}/en/lessons/no-such-lesson")
    assert response.status == 404
    assert page.locator("h1").inner_text() == "This page does not exist"
    context.close()
