"""Phones: at 360-390 px the header keeps its navigation behind a menu button
that keyboard and screen-reader users can work (aria-expanded, Escape, focus), the bell stays in view,
and no page of the site scrolls sideways, in Korean and English, for a visitor, a learner, a grader
and an admin."""
from __future__ import annotations

import pytest

from app.bench.submissions_server import Server, add_users

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"  # what add_users gives every account
LESSON = "naive-vs-tiled-gemm"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("phone"), dispatcher_enabled="false",
                    signin_user_limit="1000/60", signin_ip_limit="1000/60").start()
    tokens = add_users(server.db_url, ["learner1", "learner2"])
    add_users(server.db_url, ["grader1"], role="grader")
    add_users(server.db_url, ["admin1"], role="admin")
    _fill(server.url, tokens)
    yield server
    server.stop()


def _fill(base: str, tokens: dict[str, str]) -> None:
    """Rows for the dashboard and the inbox, with long unbroken words (the worst case for a narrow card)."""
    import httpx

    long_word = "x" * 120
    with httpx.Client(base_url=base, timeout=30) as http:
        one = {"Authorization": f"Bearer {tokens['learner1']}"}
        two = {"Authorization": f"Bearer {tokens['learner2']}"}
        source = 'extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K) {}'
        r = http.post("/api/exercises/gemm/submissions", headers=one,
                      json={"source": source, "launch": {"block": [16, 16, 1], "tile": [16, 16]}})
        assert r.status_code == 202, r.text
        r = http.post(f"/api/lessons/{LESSON}/comments", headers=one, json={"body": f"A question {long_word}", "lang": "en"})
        assert r.status_code == 201, r.text
        cid = r.json().get('id') or r.json()['comment']['id']
        r = http.post(f"/api/comments/{cid}/report", headers=two,
                      json={"reason": f"spam {long_word}", "lang": "en"})
        assert r.status_code == 201, r.text


def _phone(browser, lang: str, width: int = 360):
    context = browser.new_context(viewport={"width": width, "height": 800}, locale="ko-KR" if lang == "ko" else "en-US",
                                  is_mobile=True, has_touch=True, device_scale_factor=2)
    return context, context.new_page()


def _sign_in(page, base: str, lang: str, name: str) -> None:
    page.goto(f"{base}/{lang}/signin")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.locator("form[data-auth-form] button[type=submit]").click()


def _sideways(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_phone_menu_is_a_keyboard_and_screen_reader_disclosure(browser, site, lang):
    context, page = _phone(browser, lang, 390)
    try:
        _sign_in(page, site.url, lang, "admin1")
        page.goto(f"{site.url}/{lang}/")
        toggle = page.locator("[data-nav-toggle]")
        menu = page.locator("#site-menu")
        assert toggle.is_visible() and not menu.is_visible()
        assert toggle.get_attribute("aria-expanded") == "false" and toggle.get_attribute("aria-controls") == "site-menu"
        assert page.locator("[data-bell]").is_visible()  # the bell stays outside the menu
        assert page.locator(".brand").get_attribute("aria-label")  # a name even when the brand text is hidden
        # keyboard: focus the button, open it with Enter, the first link gets focus; Escape closes it
        toggle.focus()
        page.keyboard.press("Enter")
        assert toggle.get_attribute("aria-expanded") == "true" and menu.is_visible()
        for name in ("/ladder", "/graders", "/profile", "/admin/users"):
            assert menu.locator(f"a[href$='{name}']").is_visible(), name
        focused = page.evaluate("document.activeElement.closest('#site-menu') !== null")
        assert focused
        page.keyboard.press("Escape")
        assert toggle.get_attribute("aria-expanded") == "false" and not menu.is_visible()
        assert page.evaluate("document.activeElement.hasAttribute('data-nav-toggle')")
        # a tap opens it, a link in it navigates
        toggle.click()
        menu.locator("a[href$='/ladder']").click()
        page.wait_for_url(f"**/{lang}/ladder")
        # the other language's link has an accessible name (the full language name, visually hidden)
        other = page.locator("a[data-lang-switch]")
        assert other.evaluate("el => el.innerText.trim().length > 0 || el.textContent.trim().length > 2")
    finally:
        context.close()


def test_desktop_header_shows_links_without_a_menu_button(browser, site):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{site.url}/en/")
        assert not page.locator("[data-nav-toggle]").is_visible()
        assert page.locator("#site-menu a[href='/en/ladder']").is_visible()
    finally:
        context.close()


PAGES = {
    None: ["/{lang}/", f"/{{lang}}/lessons/{LESSON}", "/{lang}/ladder", "/{lang}/signin", "/{lang}/signup",
           f"/{{lang}}/lessons/{LESSON}/comments", "/{lang}/no-such-page"],
    "learner1": ["/{lang}/", f"/{{lang}}/lessons/{LESSON}", "/{lang}/profile", "/{lang}/notifications"],
    "grader1": ["/{lang}/graders"],
    "admin1": ["/{lang}/admin/users", "/{lang}/reports", "/{lang}/graders"],
}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_no_page_scrolls_sideways_at_360px(browser, site, lang):
    wide = []
    for who, paths in PAGES.items():
        context, page = _phone(browser, lang, 360)
        try:
            if who:
                _sign_in(page, site.url, lang, who)
            for path in paths:
                page.goto(site.url + path.format(lang=lang))
                page.wait_for_load_state("networkidle")
                extra = _sideways(page)
                if extra > 0:
                    wide.append((who, path, extra))
        finally:
            context.close()
    assert wide == []
