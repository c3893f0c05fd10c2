"""What a learner, an instructor and an administrator trip over in their first hour, on a 390 px phone in
Chromium, in Korean and English: a field the browser refuses to send is explained in the page's language
(not the browser's), every control of the pages they pass through is at least 24 px each way, and a
class's completion levels are named in words, never by a spec's tier id."""
from __future__ import annotations

import datetime as dt
from contextlib import contextmanager

import httpx
import pytest

from tests.e2e.test_classes import create_class
from tests.e2e.test_phone_every_page import SMALL_OR_UNREACHABLE
from tests.panel.support import LiveServer, add_user, insert_graded, passed_result, sign_in

pytestmark = pytest.mark.e2e
# an iPhone 12-15's screen; the browser's own language stays English, as on a shared lab machine
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True,
         "locale": "en-US"}
GEMM = "naive-vs-tiled-gemm"
REFUSED = {
    "ko": {"short": "3자 이상 입력해 주세요(지금 1자예요).", "empty": "이 칸을 채워 주세요."},
    "en": {"short": "Please use at least 3 characters (you have 1).", "empty": "Please fill in this field."},
}
LEVELS = {
    "ko": {"option": "속도 단계: Naive 기준 커널보다 1.05배 빠름",
           "tiers": ["통과", "Naive 기준 커널보다 1.05배 빠름", "Tiled 기준 커널보다 1.05배 빠름",
                     "라이브러리 기준선 속도의 50% 이상"]},
    "en": {"option": "Speed tier: 1.05× faster than Naive reference",
           "tiers": ["Passed", "1.05× faster than Naive reference", "1.05× faster than Tiled reference",
                     "at least 50% of the speed of Library baseline"]},
}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("first-hour-walk"))
    tokens = {name: add_user(server.app, name, role) for name, role in
              (("walker", "learner"), ("neighbour", "learner"), ("teacher", "instructor"), ("boss", "admin"),
               ("reader_ko", "learner"), ("reader_en", "learner"))}
    server.sub = insert_graded(server.app, "walker", passed_result())
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for who in ("walker", "neighbour"):  # the walker's own comment and someone else's
            r = http.post(f"/api/lessons/{GEMM}/comments", headers={"Authorization": f"Bearer {tokens[who]}"},
                          json={"body": f"A note from {who}.", "lang": "en"})
            assert r.status_code == 201, r.text
    yield server
    server.stop()


@contextmanager
def _phone(browser):
    """A page in a fresh phone context, closed afterwards."""
    context = browser.new_context(**PHONE)
    try:
        yield context.new_page()
    finally:
        context.close()


def _message(page, selector: str) -> str:
    return page.evaluate("s => document.querySelector(s).validationMessage", selector)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_a_refused_field_is_explained_in_the_pages_language(browser, live, lang):
    with _phone(browser) as page:
        page.goto(f"{live.url}/{lang}/signup")
        page.fill("input[name=username]", "x")
        page.locator("form button[type=submit]").click()
        assert page.url == f"{live.url}/{lang}/signup"  # nothing was sent
        assert _message(page, "input[name=username]") == REFUSED[lang]["short"]
        page.fill("input[name=username]", "xyz")  # typing clears it: the browser checks the new value
        assert _message(page, "input[name=username]") == ""
        page.locator("form button[type=submit]").click()
        assert _message(page, "input[name=password]") == REFUSED[lang]["empty"]

        sign_in(page, live.url, "walker", lang)
        page.goto(f"{live.url}/{lang}/lessons/matrix-layout-coalescing")
        page.locator("[data-comments]").scroll_into_view_if_needed()
        page.wait_for_selector("[data-comments][data-loaded]")
        page.locator("[data-comment-form] button[type=submit]").click()
        assert _message(page, "#comment-body") == REFUSED[lang]["empty"]


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_every_control_on_the_first_hour_pages_is_big_enough(browser, live, lang):
    problems: dict[str, list[str]] = {}
    with _phone(browser) as page:
        sign_in(page, live.url, "walker", lang)
        page.goto(f"{live.url}/{lang}/profile")  # the list of lessons: links alone in their cells
        problems["profile"] = page.evaluate(SMALL_OR_UNREACHABLE)
        page.goto(f"{live.url}/{lang}/lessons/{GEMM}")  # comment actions (Reply, Edit, Delete, Report)
        page.locator("[data-comments]").scroll_into_view_if_needed()  # they load when they come near the screen
        page.wait_for_selector("[data-comments][data-loaded] [data-action=report]")
        page.locator("[data-panel]").scroll_into_view_if_needed()
        page.wait_for_selector("[data-panel][data-ready]")
        page.locator("[data-history-box] summary").click()  # the history's "compare" checkboxes
        page.wait_for_selector(f"[data-history-row='{live.sub}']")
        problems["lesson"] = page.evaluate(SMALL_OR_UNREACHABLE)
        page.goto(f"{live.url}/{lang}/lessons/{GEMM}/comments")  # "← lesson" above the thread (drawn by the server)
        problems["comments page"] = page.evaluate(SMALL_OR_UNREACHABLE)
    with _phone(browser) as page:
        sign_in(page, live.url, "boss", lang)
        page.goto(f"{live.url}/{lang}/admin/users")  # the role menus
        problems["admin users"] = page.evaluate(SMALL_OR_UNREACHABLE)
        page.locator("[data-reset-for=walker]").click()  # the one-time link the admin copies and hands over
        page.wait_for_selector("[data-reset-link]")
        problems["reset link"] = page.evaluate(SMALL_OR_UNREACHABLE)
        page.goto(f"{live.url}/{lang}/graders")  # "#12" links to each submission
        problems["graders"] = page.evaluate(SMALL_OR_UNREACHABLE)
    assert {where: found for where, found in problems.items() if found} == {}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_completion_levels_are_named_in_words(browser, live, lang):
    with _phone(browser) as page:
        sign_in(page, live.url, "teacher", lang)
        page.goto(f"{live.url}/{lang}/classes")
        create_class(page, f"Levels {lang}")
        new = page.locator("[data-new-assignment]")
        tier = new.locator("select[name=complete_tier] option[value=beat_naive]")
        assert tier.inner_text().strip() == LEVELS[lang]["option"]
        # the longest level in words must not widen the form past the screen (the page itself does not scroll:
        # the fields were cut off at its edge)
        assert page.evaluate(SMALL_OR_UNREACHABLE) == []
        due = dt.datetime.now(dt.timezone(dt.timedelta(hours=9))) + dt.timedelta(days=2)
        new.locator("input[name=title]").fill("Week 1")
        new.locator("input[name=opens_at]").fill((due - dt.timedelta(days=7)).strftime("%Y-%m-%dT09:00"))
        new.locator("input[name=due_at]").fill(due.strftime("%Y-%m-%dT23:59"))
        new.locator("input[name=exercises][value=gemm]").check()
        new.locator("select[name=complete_tier]").select_option("beat_naive")
        new.locator("button[type=submit]").click()
        page.wait_for_selector("[data-assignment]")
        assignment = page.locator("[data-assignment]").inner_text()
        assert LEVELS[lang]["tiers"][1] in assignment and "beat_naive" not in assignment
        invite = page.locator("[data-invite-link]").inner_text()
        page.goto(live.url + page.locator("[data-insight-link]").first.get_attribute("href"))
        levels = page.locator("[data-insight-exercise=gemm] [data-tier]").all_inner_texts()
        assert [text.rsplit(":", 1)[0] for text in levels] == LEVELS[lang]["tiers"]
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    with _phone(browser) as page:  # a learner joins: the course page says what the score counts
        sign_in(page, live.url, "neighbour", lang)
        page.goto(invite)
        page.locator("[data-join]").tap()
        page.wait_for_selector("[data-done]")
        page.goto(f"{live.url}/{lang}/")
        scores = page.locator("[data-my-assignments]:not([hidden]) [data-score]")  # one per class joined so far
        scores.first.wait_for()
        assert set(scores.all_inner_texts()) == {{"ko": "완료: 1개 중 0개", "en": "Done: 0 of 1"}[lang]}


MENU_ROWS = """() => [...document.querySelectorAll('#site-menu a, #site-menu button')].map(el => {
  const s = getComputedStyle(el), r = el.getBoundingClientRect();
  return {text: el.textContent.trim(), width: Math.round(r.width), color: s.color, line: s.textDecorationLine};
})"""


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_phone_menu_is_one_list(browser, live, lang):
    """Opened on a phone, the menu's rows (Course, GEMM ladder, Classes, the account, Sign out) are alike:
    each as wide as the menu, none underlined like a link in a sentence."""
    with _phone(browser) as page:
        sign_in(page, live.url, "boss", lang)
        page.locator("[data-nav-toggle]").click()
        rows = page.evaluate(MENU_ROWS)
        assert [row["text"] for row in rows][-1] == {"ko": "로그아웃", "en": "Sign out"}[lang]
        assert len({row["width"] for row in rows}) == 1 and rows[0]["width"] > 300
        assert len({row["color"] for row in rows}) == 1 and {row["line"] for row in rows} == {"none"}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_an_achievement_card_can_be_tapped_away(browser, live, lang):
    """The card of a first achievement lies over the bottom of a phone's screen (the comment box): its
    close button, named in the page's language and big enough for a finger, takes it away at once."""
    with _phone(browser) as page:
        sign_in(page, live.url, f"reader_{lang}", lang)
        page.goto(f"{live.url}/{lang}/lessons/transpose-bank-conflicts")
        button = page.locator("[data-mark-complete]")
        button.scroll_into_view_if_needed()
        button.tap()
        card = page.locator("[data-announce] .announce__item")
        card.wait_for()
        close = card.locator("button")
        assert close.get_attribute("aria-label") == {"ko": "닫기", "en": "Close"}[lang]
        box = close.bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24
        close.tap()
        assert card.count() == 0


@pytest.mark.parametrize("path", ["/ko/", "/ko/lessons/matrix-layout-coalescing"])
def test_the_english_tags_on_a_korean_page_are_marked_english(browser, live, path):
    """A lesson's tags are its English keywords; on a Korean page they carry lang="en" (a screen reader then
    reads "row-major" in English, not in Korean sounds), and the page still fits the phone."""
    with _phone(browser) as page:
        page.goto(live.url + path)
        langs = page.evaluate("[...document.querySelectorAll('.tag')].map(t => t.closest('[lang]').lang)")
        assert "matrices" in page.locator(".tag").all_inner_texts() and set(langs) == {"en"}
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
