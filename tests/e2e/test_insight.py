"""'Inside your kernel' in Chromium: click a source line -> its instructions light up, click an
instruction -> its line lights up, SASS/PTX switch, class emphasis; en and ko, desktop and phone.
Screenshots go to test-artifacts/."""
import re

import pytest

from app.core.config import PROJECT_ROOT
from tests.insight.support import stop_compiler, with_insight
from tests.panel.support import LiveServer, add_user, insert_graded, passed_result, sign_in

pytestmark = pytest.mark.e2e
# Playwright's wait_for_function evaluates a string in the page, which the CSP forbids; expect() polls without it.
expect = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed").expect
LESSON = "/{lang}/lessons/naive-vs-tiled-gemm"
TILED = (PROJECT_ROOT / "kernels/gemm/tiled.cu").read_text()
NAIVE = (PROJECT_ROOT / "kernels/gemm/naive.cu").read_text()


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("insight-e2e"))
    for name in ("ins_en", "ins_ko", "ins_phone", "ins_profile"):
        add_user(server.app, name)
    yield server
    server.stop()
    stop_compiler()


def open_result(browser, live, user, lang, source, viewport, counters=None, **context_args):
    counters = counters if counters is not None else {"available": False, "reason": "NCU_MISSING"}
    sub = insert_graded(live.app, user, with_insight(passed_result(), source, counters=counters or None),
                        source=source)
    context = browser.new_context(viewport=viewport, locale=lang, **context_args)
    page = context.new_page()
    sign_in(page, live.url, user, lang)
    page.goto(live.url + LESSON.format(lang=lang))
    page.evaluate(f"() => localStorage.setItem('mkc-last:gemm:{user}', '{sub}')")
    page.goto(live.url + LESSON.format(lang=lang))
    page.locator("[data-panel]").scroll_into_view_if_needed()  # the panel starts when near the screen
    page.wait_for_selector("[data-panel][data-ready]")
    page.wait_for_selector("[data-result] [data-insight]")
    return context, page, page.locator("[data-insight]")


def line_of(source, needle):
    return next(i for i, t in enumerate(source.splitlines(), 1) if needle in t)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_click_source_line_and_instruction(browser, live, artifacts, lang):
    context, page, ins = open_result(browser, live, f"ins_{lang}", lang, TILED, {"width": 1280, "height": 1000})
    sync = line_of(TILED, "__syncthreads")
    # source line -> its instructions (the barrier) highlighted, and only that line's
    ins.locator(f".ins__srcbtn[data-line='{sync}']").click()
    lit = ins.locator(".ins__list[data-ins-list=sass] li.is-hl")
    assert lit.count() >= 1
    assert all(lit.nth(i).get_attribute("data-line") == str(sync) for i in range(lit.count()))
    assert "BAR.SYNC" in " ".join(lit.all_inner_texts())
    assert ins.locator(f".ins__srcbtn[data-line='{sync}']").get_attribute("aria-pressed") == "true"
    # instruction -> its source line
    ffma = ins.locator(".ins__list[data-ins-list=sass] li.is-ffma").first
    ffma_line = ffma.get_attribute("data-line")
    ffma.click()
    assert ins.locator(f"[data-src-line='{ffma_line}']").get_attribute("class") == "is-hl"
    assert "+=" in ins.locator(f"[data-src-line='{ffma_line}']").inner_text()
    assert ins.locator(f".ins__srcbtn[data-line='{sync}']").get_attribute("aria-pressed") == "false"
    # class emphasis
    ins.locator("[data-ins-class=shared_load]").click()
    assert ins.get_attribute("data-show-class") == "shared_load"
    ins.locator("[data-ins-part=assembly]").screenshot(path=str(artifacts / f"insight-assembly-{lang}.png"))
    # PTX view, with the same highlighting
    ins.locator("[data-ins-view][value=ptx]").check()
    assert ins.locator("[data-ins-list=ptx]").is_visible() and not ins.locator("[data-ins-list=sass]").is_visible()
    ins.locator(f".ins__srcbtn[data-line='{sync}']").click()
    assert "bar.sync" in " ".join(ins.locator("[data-ins-list=ptx] li.is-hl").all_inner_texts())
    # the roofline and the plain counters message
    assert ins.locator("svg.roof[role=img]").count() == 1
    text = ins.inner_text()
    assert ("Nsight Compute (ncu) is not available" in text) if lang == "en" else ("Nsight Compute(ncu)가 없어서" in text)
    ins.screenshot(path=str(artifacts / f"insight-{lang}.png"))
    context.close()


def test_phone_width(browser, live, artifacts):
    context, page, ins = open_result(browser, live, "ins_phone", "ko", NAIVE, {"width": 390, "height": 844},
                                     device_scale_factor=2, is_mobile=True, has_touch=True)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px"
    box = ins.bounding_box()
    assert box["width"] <= 390
    dot = line_of(NAIVE, "acc += A[")
    ins.locator(f".ins__srcbtn[data-line='{dot}']").tap()
    assert ins.locator(".ins__list[data-ins-list=sass] li.is-hl").count() > 0
    hint = ins.locator("[data-hint=gemm_without_shared_reuse] a")
    assert hint.get_attribute("href").startswith("/ko/lessons/naive-vs-tiled-gemm#")
    ins.screenshot(path=str(artifacts / "insight-phone-ko.png"))
    page.locator("svg.roof").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "insight-phone-ko-roofline.png"))
    context.close()


def test_profile_this_kernel_follows_the_new_submission(browser, live, artifacts):
    context, page, ins = open_result(browser, live, "ins_profile", "en", TILED, {"width": 1280, "height": 1000},
                                     counters={})
    old = page.locator("[data-result] [data-submission]").get_attribute("data-submission")
    button = ins.locator("[data-profile]")
    assert button.is_visible() and "counts as one submission" in ins.inner_text()
    ins.locator("[data-ins-part=counters]").screenshot(path=str(artifacts / "insight-profile-button-en.png"))
    button.click()
    expect(page.locator("[data-result] [data-submission]")).to_have_attribute(  # (not a string predicate: CSP)
        "data-submission", re.compile(rf"^(?!{old}$)\d+$"), timeout=20000)
    new = page.locator("[data-result] [data-submission]").get_attribute("data-submission")
    assert int(new) > int(old)
    stored = page.evaluate("() => localStorage.getItem('mkc-last:gemm:ins_profile')")
    assert stored == new
    # no GPU here: the profiled copy compiles and waits for a GPU
    page.wait_for_selector("[data-result] [data-result-state=awaiting_gpu]", timeout=60000)
    context.close()
