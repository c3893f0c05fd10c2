"""Every lesson and the pages around it on a 360 px phone in Chromium, in Korean and English: the page
itself never scrolls sideways, every figure's labels are drawn at 9 px or more and none is cut off
by the figure's edge, and every control can be reached and is at least 24 px tall and wide (WCAG
2.5.8; links inside a sentence are exempt, as the rule says)."""
from __future__ import annotations

import pytest

from tests.e2e.test_classes import create_class
from tests.panel.support import LiveServer, add_user, sign_in

pytestmark = pytest.mark.e2e
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LESSONS = ["matrix-layout-coalescing", "parallel-reduction", "transpose-bank-conflicts", "naive-vs-tiled-gemm",
           "register-tiling-tensor-cores", "tensor-cores-hopper", "reading-what-the-gpu-ran"]
CLASS_NAME = {"en": "Phone class", "ko": "휴대폰 반"}

# Controls narrower or shorter than 24 px, or lying outside the screen where nothing scrolls to them.
# A link inside running text is exempt (WCAG 2.5.8's inline exception); a checkbox or radio counts by
# its label, which is what a finger taps.
SMALL_OR_UNREACHABLE = """() => {
  const out = [];
  const width = document.documentElement.clientWidth;
  const scrollsSideways = el => {
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && a.scrollWidth > a.clientWidth) return a;
    }
    return null;
  };
  const inSentence = el => {
    const block = el.closest('p, li, td, th, dd, dt, figcaption, blockquote, h1, h2, h3, h4, h5, h6, small, label');
    return block && block.textContent.trim().length > el.textContent.trim().length + 2;
  };
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex="0"]';
  for (const el of document.querySelectorAll(sel)) {
    if (el.closest('.cm-editor, [hidden], .visually-hidden, .skip-link')) continue;
    let r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;              // not shown (e.g. a closed menu)
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || s.position === 'absolute' && r.width <= 1) continue;  // screen-reader only
    if (el.tagName === 'A' && inSentence(el)) continue;
    if (el.type === 'checkbox' || el.type === 'radio') {
      const label = el.closest('label') || (el.id && document.querySelector(`label[for="${el.id}"]`));
      if (label) r = label.getBoundingClientRect();
    }
    const name = (el.tagName + ' ' + (el.getAttribute('aria-label') || el.textContent || el.name || el.type || '')
                  .trim().replace(/\\s+/g, ' ').slice(0, 40));
    if (r.width < 24 || r.height < 24) out.push(`${name}: ${Math.round(r.width)}x${Math.round(r.height)}`);
    const box = scrollsSideways(el);
    const [left, right] = box ? [box.getBoundingClientRect().left, box.getBoundingClientRect().right] : [0, width];
    if (box ? (left < -1 || right > width + 1) : (r.left < -1 || r.right > width + 1))
      out.push(`${name}: outside the screen (${Math.round(r.left)}..${Math.round(r.right)})`);
  }
  return out;
}"""

# For one figure loaded on its own: the smallest label in the figure's own units, and the labels that
# stick out of its viewBox (cut off where the figure is drawn).
FIGURE_TEXT = """() => {
  const svg = document.documentElement;
  const vb = svg.viewBox.baseVal;
  const root = svg.getScreenCTM();
  let smallest = Infinity;
  const clipped = [];
  for (const t of svg.querySelectorAll('text')) {
    if (!t.textContent.trim()) continue;
    const m = t.getScreenCTM();
    const scale = Math.hypot(m.a, m.b) / root.a;  // a rotated label scales by the matrix's norm
    smallest = Math.min(smallest, parseFloat(getComputedStyle(t).fontSize) * scale);
    const r = t.getBoundingClientRect();
    const x0 = (r.left - root.e) / root.a, x1 = (r.right - root.e) / root.a;
    const y0 = (r.top - root.f) / root.d, y1 = (r.bottom - root.f) / root.d;
    if (x0 < vb.x - 1 || y0 < vb.y - 1 || x1 > vb.x + vb.width + 1 || y1 > vb.y + vb.height + 1)
      clipped.push(t.textContent.trim());
  }
  return {smallest, clipped, width: vb.width};
}"""


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("phone-every-page"))
    add_user(server.app, "phone_learner")
    add_user(server.app, "phone_teacher", "instructor")
    yield server
    server.stop()


def _phone(browser):
    context = browser.new_context(**PHONE)
    return context, context.new_page()


def _page_problems(page) -> list[str]:
    page.wait_for_load_state("networkidle")
    problems = []
    extra = page.evaluate("document.scrollingElement.scrollWidth")
    if extra > 360:
        problems.append(f"the page is {extra} px wide")
    problems += page.evaluate(SMALL_OR_UNREACHABLE)
    return problems


def _figure_problems(page, base: str) -> list[str]:
    """Each lesson figure as drawn on this page: its labels' size on screen and whether any is cut off."""
    problems = []
    figures = page.evaluate("""() => [...document.querySelectorAll('article img[src$=".svg"]')]
        .map(img => ({src: img.getAttribute('src'), width: img.getBoundingClientRect().width}))""")
    assert figures, "the figures were not found"
    viewer = page.context.new_page()
    try:
        for figure in figures:
            viewer.goto(base + figure["src"])
            found = viewer.evaluate(FIGURE_TEXT)
            on_screen = found["smallest"] * figure["width"] / found["width"]
            if on_screen < 9:
                problems.append(f"{figure['src']}: labels at {on_screen:.1f} px")
            if found["clipped"]:
                problems.append(f"{figure['src']}: cut off {found['clipped']}")
    finally:
        viewer.close()
    return problems


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_lesson_fits_a_phone(browser, live, lang):
    context, page = _phone(browser)
    problems: dict[str, list[str]] = {}
    try:
        for slug in LESSONS:
            page.goto(f"{live.url}/{lang}/lessons/{slug}")
            found = _page_problems(page)
            if page.locator("article img[src$='.svg']").count():
                found += _figure_problems(page, live.url)
            if found:
                problems[slug] = found
    finally:
        context.close()
    assert problems == {}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_figures_are_in_the_readers_language(browser, live, lang):
    context, page = _phone(browser)
    try:
        page.goto(f"{live.url}/{lang}/lessons/naive-vs-tiled-gemm")
        sources = page.evaluate("[...document.querySelectorAll('article img[src$=\".svg\"]')].map(i => i.getAttribute('src'))")
        assert len(sources) == 2
        assert all(src.endswith(".ko.svg") == (lang == "ko") for src in sources)
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_course_panel_sign_in_and_class_pages_fit_a_phone(browser, live, lang):
    problems: dict[str, list[str]] = {}
    context, page = _phone(browser)
    try:
        for path in ("/", "/signin", "/signup"):
            page.goto(f"{live.url}/{lang}{path}")
            problems[path] = _page_problems(page)
        sign_in(page, live.url, "phone_learner", lang)
        page.goto(f"{live.url}/{lang}/")
        problems["/ (signed in)"] = _page_problems(page)
        page.goto(f"{live.url}/{lang}/lessons/naive-vs-tiled-gemm")
        page.locator("[data-panel]").scroll_into_view_if_needed()
        page.wait_for_selector("[data-panel][data-ready]")
        problems["the exercise panel"] = _page_problems(page)
    finally:
        context.close()

    context, page = _phone(browser)
    try:
        sign_in(page, live.url, "phone_teacher", lang)
        page.goto(f"{live.url}/{lang}/classes")
        problems["/classes (empty)"] = _page_problems(page)
        create_class(page, CLASS_NAME[lang])
        class_url = page.url.split("?")[0]
        problems["a class"] = _page_problems(page)
        for path in ("/gradebook", "/submissions", "/boards/gemm"):
            page.goto(class_url + path)
            problems[path] = _page_problems(page)
        page.goto(f"{live.url}/{lang}/classes")
        problems["/classes"] = _page_problems(page)
    finally:
        context.close()
    assert {where: found for where, found in problems.items() if found} == {}
