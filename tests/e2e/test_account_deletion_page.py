"""The account deletion page in Chromium: it says what the learner wrote and asks, with two labelled
choices, whether to keep or delete it; both languages, a 360 px phone; axe-core finds nothing serious."""
from __future__ import annotations

import pytest

from tests.e2e.test_override_form import _axe
from tests.panel.support import LiveServer, add_user, sign_in

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("deletion-page"))
    add_user(server.app, "leaving")
    yield server
    server.stop()


@pytest.mark.parametrize(("lang", "keep", "delete"), [("en", "Keep them", "Delete them too"), ("ko", "남기기", "함께 지우기")])
def test_the_page_asks_what_becomes_of_comments_and_reports(browser, live, lang, keep, delete):
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    sign_in(page, live.url, "leaving", lang)
    page.goto(f"{live.url}/{lang}/profile/delete")
    choices = page.locator("[data-contributions]")
    assert keep in choices.get_by_role("radio").nth(0).evaluate("e => e.closest('label').innerText")
    assert delete in choices.get_by_role("radio").nth(1).evaluate("e => e.closest('label').innerText")
    page.fill("input[name=password]", "correct horse battery")
    page.locator("form[action$='/profile/delete'] button[type=submit]").click()  # no choice made: the browser asks for one, nothing is sent
    assert page.url.endswith(f"/{lang}/profile/delete")
    assert choices.get_by_role("radio").nth(0).evaluate("e => !e.validity.valid")
    assert _axe(page) == []
    context.close()
