"""The editor and the result describe the same code, in Chromium against a real uvicorn (real NVRTC
compile, no GPU): a result shows its submission's own code read-only with "Load into the editor"; its
"Line N" leads into that code when the editor holds other code; a new browser with no draft starts
from the learner's latest submission. Both languages; axe-core finds nothing serious."""
from __future__ import annotations

import time

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.test_override_form import _axe
from tests.panel.support import LiveServer, add_user, sign_in

pytestmark = pytest.mark.e2e
LESSON = "naive-vs-tiled-gemm"
BROKEN = ('extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)\n'
          "{\n    // my own version\n    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
          "    float acc = 0.0f\n    C[row] = acc;\n}\n")


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("submission-source"))
    server.tokens = {lang: add_user(server.app, f"src_{lang}") for lang in ("en", "ko")}
    yield server
    server.stop()


def _submit_and_wait(live, token: str) -> int:
    headers = {"Authorization": f"Bearer {token}"}
    body = {"source": BROKEN, "launch": {"block": [16, 16, 1], "tile": [16, 16], "smem": 0}}
    created = httpx.post(f"{live.url}/api/exercises/gemm/submissions", json=body, headers=headers, timeout=30)
    assert created.status_code == 202, created.text
    sub = created.json()["id"]
    deadline = time.monotonic() + 90
    while httpx.get(f"{live.url}/api/submissions/{sub}", headers=headers, timeout=30).json()["state"] != "done":
        assert time.monotonic() < deadline, "the compile did not finish"
        time.sleep(0.3)
    return sub


def editor_text(page) -> str:
    return page.evaluate("() => document.querySelector('[data-panel]').mkcPanel.editor.getValue()")


@pytest.mark.parametrize(("lang", "loaded"), [("en", "is in the editor"), ("ko", "편집기에 불러왔어요")])
def test_a_result_comes_with_its_own_code(browser, live, lang, loaded):
    sub = _submit_and_wait(live, live.tokens[lang])
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # a new device: no draft
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    sign_in(page, live.url, f"src_{lang}", lang)
    page.goto(f"{live.url}/{lang}/lessons/{LESSON}")
    panel = page.locator("[data-panel]")
    panel.scroll_into_view_if_needed()
    expect(panel.locator("[data-result] [data-verdict=COMPILE_ERROR]")).to_be_visible(timeout=20000)
    # the latest submission's code is in the editor, and the panel says so
    expect(panel.locator("[data-draft-note]")).to_contain_text(loaded)
    assert editor_text(page) == BROKEN
    assert panel.locator("[data-launch] [name=bx]").input_value() == "16"  # and its launch

    # back to the starter: now "Line N" cannot mean the editor's line N
    panel.locator("[data-reset]").click()
    assert "my own version" not in editor_text(page)
    jump = panel.locator("[data-jump-line]").first
    line = int(jump.get_attribute("data-jump-line"))
    assert BROKEN.split("\n")[line - 1].strip() in ("float acc = 0.0f", "C[row] = acc;")
    jump.click()
    code = panel.locator(f"[data-submission-source='{sub}']")
    expect(code.locator("[data-source-view]")).to_be_visible()
    assert "my own version" in code.locator("[data-source-view]").inner_text()
    expect(code.locator(".is-jumped")).to_have_text(str(line))
    assert "my own version" not in editor_text(page)  # the editor was not touched

    code.locator("[data-load-source]").click()
    assert editor_text(page) == BROKEN
    assert _axe(page) == []
    context.close()
