"""A forgotten password in Chromium: an admin makes a one-time link on the users page, the user opens
it and chooses a new password, and is signed in; the link then says it no longer works. Both
languages; axe-core finds nothing serious on the two pages."""
from __future__ import annotations

import pytest

from tests.e2e.test_override_form import _axe
from tests.panel.support import LiveServer, add_user, sign_in

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("password-reset"))
    add_user(server.app, "root_admin", "admin")
    for lang in ("en", "ko"):
        add_user(server.app, f"forgot_{lang}")
    yield server
    server.stop()


@pytest.mark.parametrize(("lang", "box_words", "gone"), [("en", "one-time password-reset link", "does not work"),
                                                          ("ko", "일회용 비밀번호 재설정 링크", "쓸 수 없어요")])
def test_an_admin_makes_a_link_and_the_user_sets_a_new_password(browser, live, lang, box_words, gone):
    admin = browser.new_context(viewport={"width": 1280, "height": 900})
    page = admin.new_page()
    sign_in(page, live.url, "root_admin", lang)
    page.goto(f"{live.url}/{lang}/admin/users")
    with page.expect_navigation():
        page.locator(f"[data-reset-for=forgot_{lang}]").click()
    box = page.locator("[data-reset-link-box]")
    assert box_words in box.inner_text()
    link = box.locator("[data-reset-link]").input_value()
    assert f"/{lang}/reset-password/" in link
    assert _axe(page) == []
    admin.close()

    user = browser.new_context(viewport={"width": 360, "height": 740})
    page = user.new_page()
    page.goto(link)
    page.fill("input[name=password]", "my brand new passphrase")
    page.fill("input[name=password2]", "my brand new passphrase")
    assert _axe(page) == []
    with page.expect_navigation():
        page.locator("[data-reset-form] button[type=submit]").click()
    assert page.url.endswith(f"/{lang}/profile")
    page.goto(link)
    assert gone in page.locator("[data-error=reset_link_invalid]").inner_text()
    user.close()
