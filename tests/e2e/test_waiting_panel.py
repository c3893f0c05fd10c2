"""Waiting for a GPU in the panel, in Chromium against a real uvicorn (real compile, no GPU): the
place in line, a warning before sending byte-identical code again, and Cancel; both languages, a
360 px phone too; axe-core finds nothing serious."""
from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.test_override_form import _axe
from tests.panel.support import LiveServer, add_user, sign_in

pytestmark = pytest.mark.e2e
LESSON = "naive-vs-tiled-gemm"
WORDS = {"en": ("Place in line: 1", "You already sent exactly this code", "Cancelled"),
         "ko": ("대기 순서: 1번", "이미 그대로 보냈어요", "취소")}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("waiting-panel"))
    server.tokens = {f"wait_{lang}_{vp}": add_user(server.app, f"wait_{lang}_{vp}")
                     for lang in ("en", "ko") for vp in ("desktop", "phone")}
    yield server
    server.stop()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_place_in_line_same_code_warning_and_cancel(browser, live, lang, viewport):
    place, same, cancelled = WORDS[lang]
    size = {"width": 1280, "height": 900} if viewport == "desktop" else {"width": 360, "height": 740}
    context = browser.new_context(viewport=size)
    page = context.new_page()
    dialogs = []

    def answer(dialog):
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", answer)
    user = f"wait_{lang}_{viewport}"
    sign_in(page, live.url, user, lang)
    page.goto(f"{live.url}/{lang}/lessons/{LESSON}")
    panel = page.locator("[data-panel]")
    panel.scroll_into_view_if_needed()
    page.wait_for_selector("[data-panel][data-ready]")
    panel.locator("[data-submit]").click()
    expect(panel.locator("[data-result] [data-result-state=awaiting_gpu]")).to_be_visible(timeout=60000)
    expect(panel.locator("[data-queue-place]")).to_contain_text(place)

    panel.locator("[data-submit]").click()  # the very same code again: asked first, and refused here
    expect(panel.locator("[data-result] [data-result-state=awaiting_gpu]")).to_be_visible()
    assert len(dialogs) == 1 and same in dialogs[0]
    listed = httpx.get(f"{live.url}/api/exercises/gemm/submissions",
                       headers={"Authorization": f"Bearer {live.tokens[user]}"}, timeout=30).json()["submissions"]
    assert len(listed) == 1
    assert _axe(page) == []

    panel.locator("[data-cancel-submission]").click()
    expect(panel.locator("[data-result] [data-result-state=cancelled]")).to_contain_text(cancelled)
    assert panel.locator("[data-cancel-submission]").count() == 0
    context.close()
