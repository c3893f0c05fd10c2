"""The exercise panel in Chromium against a real uvicorn (no GPU here: submissions end in a
compile error or awaiting_gpu). Screenshots go to test-artifacts/."""
import pytest

from app.core.config import PROJECT_ROOT
from tests.panel.support import LiveServer, add_user, insert_graded, passed_result, sign_in

pytestmark = pytest.mark.e2e
LESSON = "/{lang}/lessons/naive-vs-tiled-gemm"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("panel-e2e"))
    for name in ("learner1", "learner2", "learner3", "learner4"):
        add_user(server.app, name)
    yield server
    server.stop()


def open_panel(page, live, lang="en"):
    page.goto(live.url + LESSON.format(lang=lang))
    page.locator("[data-panel]").scroll_into_view_if_needed()  # the panel starts when near the screen
    page.wait_for_selector("[data-panel][data-ready]")
    return page.locator("[data-panel]")


def editor_text(page) -> str:
    return page.evaluate("() => document.querySelector('[data-panel]').mkcPanel.editor.getValue()")


def test_edit_submit_compile_error_then_fix_and_see_awaiting_without_reload(browser, live, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sign_in(page, live.url, "learner1")
    panel = open_panel(page, live)
    assert "extern \"C\" __global__ void gemm" in editor_text(page)
    page.evaluate("() => { window.__noReload = true; }")
    # edit the starter: a syntax error after the accumulator line
    page.locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nint broken = ;")
    page.locator("[data-submit]").click()
    result = panel.locator("[data-result] [data-verdict=COMPILE_ERROR]")
    result.wait_for(timeout=60000)
    assert "Compile error" in result.inner_text()
    jump = panel.locator("[data-jump-line]").first
    line = int(jump.get_attribute("data-jump-line"))
    assert line == editor_text(page).split("\n").index("int broken = ;") + 1
    panel.screenshot(path=str(artifacts / "panel-compile-error-en.png"))
    # click the line: the editor's cursor goes there
    jump.click()
    assert "broken" in page.locator(".cm-activeLine").inner_text()
    # fix it from the keyboard (the cursor is at the start of the bad line) and submit with Ctrl+Enter
    page.keyboard.press("Shift+End")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    assert "broken" not in editor_text(page)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-result] [data-result-state]:not([data-verdict=COMPILE_ERROR])", timeout=15000)
    seen = page.locator("[data-result] [data-result-state]").get_attribute("data-result-state")
    assert seen in ("queued", "compiling", "awaiting_gpu")
    page.wait_for_selector("[data-result] [data-result-state=awaiting_gpu]", timeout=60000)
    assert page.evaluate("() => window.__noReload === true"), "the page reloaded"
    assert "Waiting for a GPU" in panel.locator("[data-result]").inner_text()
    panel.screenshot(path=str(artifacts / "panel-awaiting-gpu-en.png"))
    # the draft survives a reload, and the last submission is shown again
    page.reload()
    page.locator("[data-panel]").scroll_into_view_if_needed()  # the panel starts when near the screen
    page.wait_for_selector("[data-panel][data-ready]")
    assert "broken" not in editor_text(page) and "gemm" in editor_text(page)
    page.wait_for_selector("[data-result] [data-result-state=awaiting_gpu]")
    # history lists both; a diff between them shows the removed line
    page.locator("[data-history-box] summary").click()
    page.wait_for_selector("[data-history-row]")
    boxes = page.locator("[data-history-row] input[name=pick]")
    assert boxes.count() == 2
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.locator("[data-compare]").click()
    page.wait_for_selector("[data-diff-lines]")
    assert "-int broken = ;" in page.locator("[data-diff-lines] .xdiff__del").all_inner_texts()
    context.close()


def test_keyboard_only_submit_and_shortcut_list(browser, live, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sign_in(page, live.url, "learner2")
    open_panel(page, live)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("?")
    dialog = page.locator("[data-shortcuts]")
    dialog.wait_for(state="visible")
    assert "Ctrl" in dialog.inner_text()
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    # Tab from the top of the page until the editor has focus
    page.evaluate("() => window.scrollTo(0, 0)")
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.classList.contains('cm-content')"):
            break
    else:
        pytest.fail("the editor cannot be reached with Tab")
    page.keyboard.press("Control+End")
    page.keyboard.type("\n// submitted from the keyboard")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-result] [data-result-state=awaiting_gpu]", timeout=60000)
    # Escape leaves the editor; Tab moves on to the launch fields (no keyboard trap)
    page.locator(".cm-content").focus()
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.name") == "bx"
    # a launch field the GPU cannot run is refused before sending
    page.keyboard.press("Control+a")
    page.keyboard.type("2048")
    error = page.locator("[data-launch-error]")
    assert "at most 1024" in error.inner_text()
    assert page.locator("input[name=bx]").get_attribute("aria-invalid") == "true"
    context.close()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_full_result_screenshot(browser, live, artifacts, lang):
    user = "learner3"
    tiled = (PROJECT_ROOT / "kernels/gemm/tiled.cu").read_text()
    sub = insert_graded(live.app, user, passed_result(fast=True), source=tiled)
    # tall enough that the whole panel is on screen: the editor draws only visible lines
    context = browser.new_context(viewport={"width": 1280, "height": 2600}, locale=lang)
    page = context.new_page()
    sign_in(page, live.url, user, lang)
    page.goto(live.url + LESSON.format(lang=lang))
    page.evaluate(f"() => localStorage.setItem('mkc-last:gemm:{user}', '{sub}')")
    panel = open_panel(page, live, lang)
    page.wait_for_selector("[data-result] [data-verdict=PASSED]")
    text = panel.inner_text()
    assert ("Passed" if lang == "en" else "통과") in text or "PASSED" not in text
    assert page.locator("[data-result] svg .xres__bar").count() == 3
    assert "NVIDIA H200" in text
    panel.screenshot(path=str(artifacts / f"panel-passed-{lang}.png"))
    context.close()


def test_phone_viewport_visitor(browser, live, artifacts):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    panel = open_panel(page, live, "ko")
    assert page.locator("[data-signin-to-submit]").is_visible()
    assert "로그인" in page.locator("[data-signin-prompt]").inner_text()
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px"
    box = page.locator("[data-editor]").bounding_box()
    assert box["width"] <= 390
    panel.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "panel-phone-ko.png"), full_page=False)
    panel.screenshot(path=str(artifacts / "panel-phone-ko-full.png"))
    context.close()


def test_signed_in_phone_submit_shows_state(browser, live, artifacts):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    sign_in(page, live.url, "learner4")
    panel = open_panel(page, live, "en")
    page.locator("[data-submit]").tap()
    page.wait_for_selector("[data-result] [data-result-state=awaiting_gpu]", timeout=60000)
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    panel.screenshot(path=str(artifacts / "panel-phone-awaiting-en.png"))
    context.close()


def test_without_server_sent_events_the_panel_polls(browser, live):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script("delete window.EventSource;")
    page = context.new_page()
    sign_in(page, live.url, "learner4")
    open_panel(page, live)
    assert page.evaluate("() => typeof window.EventSource") == "undefined"
    page.locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\n// polled")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-result] [data-result-state=awaiting_gpu]", timeout=60000)
    context.close()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_tab_moves_focus_until_the_learner_types_then_indents(browser, live, lang):
    """A keyboard user tabbing through the page is not caught by the editor; once they
    type, Tab indents; the visible toggle (aria-pressed) and Ctrl+M switch; the panel says how."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=lang)
    page = context.new_page()
    open_panel(page, live, lang)
    toggle = page.locator("[data-tab-toggle]")
    assert toggle.is_visible() and toggle.get_attribute("aria-pressed") == "false"
    hint = page.locator("[data-tab-hint]").inner_text()
    assert ("Esc" in hint) and ("Ctrl+M" in hint)
    before = editor_text(page)
    page.locator(".cm-content").focus()
    page.keyboard.press("Tab")  # moves on: the editor keeps its text and loses focus
    assert editor_text(page) == before
    assert not page.evaluate("() => document.activeElement.classList.contains('cm-content')")
    # start typing: Tab now indents
    page.locator(".cm-content").focus()
    page.keyboard.press("Control+Home")
    page.keyboard.type("// x")
    assert toggle.get_attribute("aria-pressed") == "true"
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    text = editor_text(page)
    assert text[:1] in (" ", "\t") and text.lstrip(" \t").startswith("// x")  # indented
    assert page.evaluate("() => document.activeElement.classList.contains('cm-content')")
    # the shortcut and the button switch back
    page.keyboard.press("Control+m")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    context.close()
