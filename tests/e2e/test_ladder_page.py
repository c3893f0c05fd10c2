"""The GEMM ladder page and lesson 04's measured section in a real browser (ko/en, desktop/phone).

Screenshots go to test-artifacts/ for a person to look at; the assertions check what a reader
must see: every rung, the chart with its title, the numbers with GPU and date, no page errors,
and no horizontal scrolling of the page itself on a phone (wide tables scroll in their own box).
"""
import pytest
from playwright.sync_api import expect

from kernels.ladder.rungs import discover

RUNG_COUNT = len(discover())

pytestmark = pytest.mark.e2e

VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def _page(browser, viewport, lang):
    context = browser.new_context(viewport=viewport, device_scale_factor=1,
                                  locale="ko-KR" if lang == "ko" else "en-US")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


def _no_page_overflow(page):
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.evaluate("window.innerWidth")
    assert width <= viewport + 1, f"page scrolls sideways: {width} > {viewport}"


@pytest.mark.parametrize("device", VIEWPORTS)
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_ladder_page(browser, server_url, artifacts, lang, device):
    context, page, errors = _page(browser, VIEWPORTS[device], lang)
    page.goto(f"{server_url}/{lang}/ladder")
    assert page.locator("h1").inner_text() == ("GEMM 사다리" if lang == "ko" else "GEMM ladder")
    assert page.locator("section.ladder-rung").count() == RUNG_COUNT
    # One of the chart's two drawings shows: labels beside the bars on a desktop, above them on a phone.
    chart = page.locator(f".ladder__chart svg.chart__svg--{'wide' if device == 'desktop' else 'narrow'}")
    assert page.locator(".ladder__chart svg:visible").count() == 1
    assert chart.is_visible()
    assert chart.locator("rect.chart__bar--f32, rect.chart__bar--f16").count() >= RUNG_COUNT
    assert "NVIDIA H200" in page.locator(".ladder__chart figcaption").inner_text()
    _no_page_overflow(page)
    page.screenshot(path=str(artifacts / f"ladder-{lang}-{device}.png"))
    chart.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"ladder-{lang}-{device}-chart.png"))
    # The source opens and has a working copy button.
    source = page.locator("#rung-05 details.ladder-rung__source")
    source.locator("summary").click()   # the source is fetched when opened
    expect(source.locator("figure.code .code__copy")).to_be_visible()
    page.goto(f"{server_url}/{lang}/ladder#rung-13")   # how lessons link to a rung
    assert page.locator("#rung-13 h2").is_visible()
    page.screenshot(path=str(artifacts / f"ladder-{lang}-{device}-rung13.png"))
    assert errors == []
    context.close()


@pytest.mark.parametrize("device", VIEWPORTS)
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_lesson_04_measured_section(browser, server_url, artifacts, lang, device):
    context, page, errors = _page(browser, VIEWPORTS[device], lang)
    page.goto(f"{server_url}/{lang}/lessons/naive-vs-tiled-gemm")
    measured = page.locator("figure.measured").first
    measured.scroll_into_view_if_needed()
    assert measured.locator("svg.chart__svg:visible").count() == 1
    assert page.locator(".ladder-embed svg.chart__svg:visible").count() == 1
    embed = page.locator(".ladder-embed")
    assert embed.locator("tbody tr").count() == 4  # rungs 01-03 and cuBLAS SGEMM
    assert embed.locator(f'a[href="/{lang}/ladder"]').is_visible()
    _no_page_overflow(page)
    # From the measured table's heading to the end of the ladder block, in page coordinates.
    top, bottom = page.evaluate("""() => {
        const fig = document.querySelector('figure.measured');
        let h = fig.previousElementSibling;
        while (h && h.tagName !== 'H2') h = h.previousElementSibling;
        const y = el => el.getBoundingClientRect().top + window.scrollY;
        const embed = document.querySelector('.ladder-embed');
        return [y(h || fig) - 16, y(embed) + embed.getBoundingClientRect().height + 16];
    }""")
    # A viewport as tall as the section (full-page captures of a long phone page get cut off).
    header = 64  # the sticky site header covers the top of the viewport
    page.set_viewport_size({"width": VIEWPORTS[device]["width"], "height": int(bottom - top) + header})
    page.evaluate("y => window.scrollTo(0, y)", top - header)
    page.wait_for_timeout(100)
    page.screenshot(path=str(artifacts / f"lesson04-measured-{lang}-{device}.png"))
    assert errors == []
    context.close()
