"""Accessibility: axe-core on every page type of the site, in Korean and
English, light and dark (dark both from the browser's prefers-color-scheme and from the site's
toggle; light from the toggle over a dark browser too), desktop and phone -> no serious or critical
violation; at 360 px no page scrolls sideways.

axe-core is the npm package, vendored under tests/e2e/vendor/axe-core/ (never served by the site);
Playwright evaluates it in the page through the DevTools protocol, which the site's
Content-Security-Policy (no inline script) does not block.

MKC_SCREENSHOTS=<folder> also saves a full-page screenshot of every page in every variant.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.config import PROJECT_ROOT
from tests.panel.support import LiveServer, add_user, insert_graded, passed_result, sign_in, wrong_result

pytestmark = pytest.mark.e2e

AXE = Path(__file__).with_name("vendor") / "axe-core" / "axe.min.js"
GEMM = "naive-vs-tiled-gemm"
DRAFT = "draft-preview"
SCREENSHOTS = os.environ.get("MKC_SCREENSHOTS")

# Every kind of page, and who sees it ({lang} and {sub}, a passed submission, are filled in). A learner on
# /admin/users sees the refusal page; the report form is also sent (its thank-you page, or past the per-address
# limit the "too many reports" page).
PAGES: dict[str | None, list[str]] = {
    None: ["/{lang}/", "/{lang}/lessons/matrix-layout-coalescing", "/{lang}/lessons/parallel-reduction",
           "/{lang}/lessons/transpose-bank-conflicts", f"/{{lang}}/lessons/{GEMM}",
           "/{lang}/lessons/register-tiling-tensor-cores", f"/{{lang}}/lessons/{GEMM}/comments",
           f"/{{lang}}/lessons/{GEMM}/report", f"/{{lang}}/lessons/{GEMM}/report#send", "/{lang}/ladder",
           "/{lang}/signin", "/{lang}/signup", "/{lang}/no-such-page"],
    "learner1": ["/{lang}/", f"/{{lang}}/lessons/{GEMM}#result", "/{lang}/profile", "/{lang}/profile/reset",
                 "/{lang}/profile/delete", "/{lang}/notifications", "/{lang}/admin/users"],
    "grader1": ["/{lang}/graders", "/{lang}/graders/stuck", "/{lang}/graders/submissions/{sub}"],
    "admin1": ["/{lang}/admin/users", "/{lang}/reports", "/{lang}/authoring", f"/{{lang}}/lessons/{DRAFT}"],
}
# name -> (the browser's colour scheme, whether the site's toggle is pressed: to the other theme than the browser's)
THEMES = {"light": ("light", False), "dark": ("dark", False), "dark-toggle": ("light", True),
          "light-toggle": ("dark", True)}
# Every page is checked light and dark (from the browser's setting). The toggle sets the same colours through
# another selector ([data-theme]); it is checked on pages that together load every stylesheet and component
# (code blocks, the editor and a result, the ladder, a grader's page, the profile, comments, the inbox), which
# keeps the module's run time reasonable on CI's two cores. Light over a dark browser: desktop only.
TOGGLE_PAGES = {f"/{{lang}}/lessons/{GEMM}#result", "/{lang}/lessons/register-tiling-tensor-cores", "/{lang}/ladder",
                "/{lang}/graders/submissions/{sub}", "/{lang}/profile", f"/{{lang}}/lessons/{GEMM}/comments",
                "/{lang}/reports", "/{lang}/signin", "/{lang}/notifications", "/{lang}/graders"}
VIEWPORTS = {"desktop": dict(viewport={"width": 1366, "height": 900}),
             "phone": dict(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True,
                           device_scale_factor=2)}


def _draft_lessons(root: Path) -> Path:
    """The course's lessons plus one draft (a copy of lesson 05), for the draft preview page."""
    import shutil

    lessons = root / "lessons"
    shutil.copytree(PROJECT_ROOT / "lessons", lessons)
    draft = lessons / "99-draft-preview"   # after every real lesson
    shutil.copytree(lessons / "05-register-tiling-tensor-cores", draft)
    meta = (draft / "lesson.yaml").read_text(encoding="utf-8")
    meta = meta.replace("order: 5", "order: 99").replace("slug: register-tiling-tensor-cores", f"slug: {DRAFT}")
    (draft / "lesson.yaml").write_text(meta.replace("status: published", "status: draft"), encoding="utf-8")
    return lessons


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    import httpx

    root = tmp_path_factory.mktemp("a11y")
    live = LiveServer(root, lessons_dir=str(_draft_lessons(root)))
    tokens = {name: add_user(live.app, name, role) for name, role in
              (("learner1", "learner"), ("learner2", "learner"), ("grader1", "grader"), ("admin1", "admin"))}
    tiled = (PROJECT_ROOT / "kernels/gemm/tiled.cu").read_text()
    live.ids = {"sub": insert_graded(live.app, "learner1", passed_result(fast=True), source=tiled),
                "wrong": insert_graded(live.app, "learner1", wrong_result())}
    with httpx.Client(base_url=live.url, timeout=30) as http:
        def api(who: str):
            return {"Authorization": f"Bearer {tokens[who]}"}
        r = http.post(f"/api/lessons/{GEMM}/comments", headers=api("learner1"),
                      json={"body": "Why does the tile size **16** work best here?", "lang": "en"})
        assert r.status_code == 201, r.text
        cid = r.json().get("id") or r.json()["comment"]["id"]
        r = http.post(f"/api/lessons/{GEMM}/comments", headers=api("learner2"),
                      json={"body": "Because 16×16 floats fit the shared memory of one block.", "lang": "en",
                            "parent_id": cid})
        assert r.status_code == 201, r.text
        r = http.post(f"/api/comments/{cid}/report", headers=api("learner2"), json={"reason": "off topic", "lang": "en"})
        assert r.status_code == 201, r.text
    yield live
    live.stop()


@pytest.fixture(scope="module")
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


def _settle(page, path: str, shown: int | None = None) -> None:
    """Wait for what scripts add after load (the editor, comments, a result from the history); '#send' sends
    the page's report form first (the thank-you page)."""
    if path.endswith("#send"):
        page.fill("textarea[name=what]", "The second table's header is cut off on my phone.")
        with page.expect_navigation():
            page.locator("form button[type=submit]").click()
    page.wait_for_load_state("networkidle")
    if page.locator("[data-panel]").count():
        page.locator("[data-panel]").scroll_into_view_if_needed()  # the panel starts when it comes near the screen
        page.wait_for_selector("[data-panel][data-ready]")
        if path.endswith("#result"):
            page.locator("[data-history-box] summary").click()
            page.wait_for_selector("[data-history-row]")
            # dispatched: on a phone the achievement toast (fixed, bottom) may lie over the button for a while
            page.locator(f"[data-show-submission='{shown}']").dispatch_event("click")
            page.wait_for_selector("[data-result] [data-verdict]")
        page.wait_for_load_state("networkidle")
        page.evaluate("window.scrollTo(0, 0)")
    if page.locator("[data-comments]").count():
        page.wait_for_selector("[data-comments][data-loaded], [data-comments-error]:not([hidden])")
    page.evaluate("document.fonts.ready")
    # what the fonts and the last insertions change is marked in the next animation frame (site.js)
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


AXE_RUN = r"""async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 6).map(n => ({target: n.target.join(' '),
                                        summary: (n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 300)})),
    count: v.nodes.length}));
}"""


def _check(page, axe_source: str) -> list[dict]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_source)  # DevTools-protocol evaluation: not an inline <script>, so CSP allows it
    return page.evaluate(AXE_RUN)


def _walk(browser, site, axe_source, lang: str, viewport: str) -> list[str]:
    """Each page is loaded once per reader and checked in every theme in place: the browser's colour scheme is
    switched by emulation, the site's theme by pressing its toggle (reduced motion: no transitions between)."""
    problems = []
    only = os.environ.get("MKC_A11Y_THEMES")  # e.g. "light,dark" while working on one part
    themes = [(name, scheme, toggle) for name, (scheme, toggle) in THEMES.items()
              if not (only and name not in only.split(",")) and not (name == "light-toggle" and viewport == "phone")]
    for who, paths in PAGES.items():
        context = browser.new_context(color_scheme="light", reduced_motion="reduce",
                                      locale="ko-KR" if lang == "ko" else "en-US", **VIEWPORTS[viewport])
        page = context.new_page()
        try:
            if who:
                sign_in(page, site.url, who, lang)
            for path in paths:
                page.goto(site.url + path.format(lang=lang, **site.ids))
                _settle(page, path, site.ids["sub"])
                where = f"{lang} {viewport} {who or 'visitor'} {path}"
                if viewport == "phone":
                    extra = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
                    if extra > 0:
                        problems.append(f"{where}: scrolls sideways by {extra}px")
                for theme, scheme, toggle in themes:
                    if toggle and path not in TOGGLE_PAGES:
                        continue
                    page.emulate_media(color_scheme=scheme)
                    if toggle:  # the site's button, as a reader presses it: the other theme than the browser's
                        page.locator("[data-theme-toggle]").click()
                    wanted_dark = (scheme == "dark") != toggle
                    shown = page.evaluate("getComputedStyle(document.body).backgroundColor")
                    assert _is_dark(shown) == wanted_dark, (theme, path, shown)
                    for v in _check(page, axe_source):
                        problems.append(f"{where} {theme}: {v['impact']} {v['id']} ({v['count']}): "
                                        + "; ".join(f"{n['target']} -> {n['summary']}" for n in v["nodes"]))
                    if SCREENSHOTS:
                        name = f"{lang}-{viewport}-{theme}-{who or 'visitor'}-{path.format(lang='', **site.ids)}"
                        shot = Path(SCREENSHOTS) / (name.strip("/").replace("/", "_").replace("#", "_") + ".png")
                        shot.parent.mkdir(parents=True, exist_ok=True)
                        page.screenshot(path=str(shot), full_page=True)
                    if toggle:  # forget the choice again (the toggle stores it for the next pages)
                        page.evaluate("localStorage.removeItem('mkc-theme'); delete document.documentElement.dataset.theme")
        finally:
            context.close()
    return problems


def _is_dark(css_color: str) -> bool:
    parts = [float(x) for x in css_color[css_color.index("(") + 1:css_color.index(")")].split(",")[:3]]
    return sum(parts) / 3 < 128


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_no_serious_accessibility_violations(browser, site, axe_source, artifacts, lang, viewport):
    problems = _walk(browser, site, axe_source, lang, viewport)
    if problems:
        (artifacts / f"a11y-{lang}-{viewport}.txt").write_text("\n".join(problems) + "\n", encoding="utf-8")
    assert problems == [], "\n".join(problems)


def test_phone_layout_details(browser, site):
    """At 360 px: rung numbers stay on one line, result-table words do not break inside, a table wider than
    the screen shows the 'swipe sideways' line (in the reader's language), a draft's preview has no comment
    spinner, and achievement icons are our SVG symbols."""
    for lang, hint in (("ko", "옆으로 밀면 모든 열이 보여요"), ("en", "Swipe sideways to see every column")):
        context = browser.new_context(locale="ko-KR" if lang == "ko" else "en-US", **VIEWPORTS["phone"])
        page = context.new_page()
        try:
            page.goto(f"{site.url}/{lang}/ladder")
            one_line = page.evaluate("""() => [...document.querySelectorAll(
                '.ladder__toc-number, .ladder-rung__number, .ladder-table--compact td:first-child a')]
                .filter(el => { const r = document.createRange(); r.selectNodeContents(el);
                                return r.getClientRects().length > 1; }).map(el => el.textContent)""")
            assert one_line == []
            assert page.locator(".ladder-rung__number").first.inner_text() == "01"
            hints = page.locator(".scroll-hint:visible")
            assert hints.count() >= 1 and hints.first.inner_text().strip().endswith(hint)
            # a hint only where its table really scrolls sideways
            assert page.evaluate("""() => [...document.querySelectorAll('.scroll-hint:not([hidden])')]
                .every(h => h.nextElementSibling.scrollWidth > h.nextElementSibling.clientWidth)""")

            sign_in(page, site.url, "learner1", lang)
            page.goto(f"{site.url}/{lang}/lessons/{GEMM}#result")
            _settle(page, "#result", site.ids["sub"])
            broken = page.evaluate("""() => [...document.querySelectorAll('[data-result] .xres__table th, [data-result] .xres__table td')]
                .flatMap(cell => [...cell.querySelectorAll('*'), cell].flatMap(el => [...el.childNodes]))
                .filter(n => n.nodeType === 3 && n.textContent.trim())
                .flatMap(n => n.textContent.trim().split(/\\s+|(?=\\()/).map(word => [n, word]))  // '(ms)' may wrap
                .filter(([n, word]) => { const i = n.textContent.indexOf(word); const r = document.createRange();
                                         r.setStart(n, i); r.setEnd(n, i + word.length);
                                         const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
                                         return tops.size > 1; })
                .map(([n, word]) => word)""")
            assert broken == []
            page.goto(f"{site.url}/{lang}/profile")
            icons = page.locator("[data-achievement] svg.badge-icon use")
            assert icons.count() >= 12
            assert icons.first.get_attribute("href").startswith("/static/img/achievements.svg#")
            assert page.evaluate("""() => { const b = document.querySelector('[data-achievement] svg.badge-icon').getBBox();
                                            return b.width > 0 && b.height > 0; }""")  # the symbol was found and drawn
        finally:
            context.close()
    context = browser.new_context(**VIEWPORTS["phone"])
    page = context.new_page()
    try:
        sign_in(page, site.url, "admin1", "ko")
        page.goto(f"{site.url}/ko/lessons/{DRAFT}")
        section = page.locator("[data-draft-comments]")
        assert "댓글은 이 레슨을 공개하면 열려요" in section.inner_text()
        assert page.locator("[data-comments-loading], [data-comments-error]:visible").count() == 0
    finally:
        context.close()
