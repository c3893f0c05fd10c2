"""Comments in Chromium: hostile comments never run script, and the reply-and-bell flow works
for two real people (own browser contexts) on a real uvicorn server."""
from __future__ import annotations

import re

import httpx
import pytest

from app.bench.submissions_server import Server
from tests.comments.xss_corpus import PAYLOADS

pytestmark = pytest.mark.e2e
# Playwright's wait_for_function evaluates a string in the page, which the CSP forbids; expect() polls without it.
expect = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed").expect
LESSON = "naive-vs-tiled-gemm"  # the XSS corpus goes here
FLOW_LESSON = "matrix-layout-coalescing"  # a clean thread for the reply-and-bell flow
PASSWORD = "correct horse battery"
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
CSRF_META = re.compile(r'name="csrf-token" content="([^"]+)"')
# Anything a payload could have smuggled into a comment body.
DATABASES: dict[str, object] = {}  # server URL -> its SQLite file (to promote an instructor)
FORBIDDEN = ("script, img, svg, math, iframe, object, embed, style, base, meta, form, input, details, "
             "template, noscript, body, link")


@pytest.fixture(scope="module")
def comments_server(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("e2e-comments"), app="tests.comments.e2e_app:make_app", factory=True)
    server.start()
    DATABASES[server.url] = server.db_path
    yield server.url
    server.stop()


def _http_signup(url: str, username: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=url, timeout=10)
    token = CSRF_FIELD.search(client.get("/en/signup").text).group(1)
    response = client.post("/en/signup", data={"csrf_token": token, "username": username, "password": PASSWORD,
                                               "password2": PASSWORD, "tz": "UTC", "next": "/en/"})
    assert response.status_code in (200, 303), response.text
    return client, CSRF_META.search(client.get("/en/").text).group(1)


def _ui_signup(page, url: str, username: str, lang: str, slug: str = FLOW_LESSON) -> None:
    page.goto(f"{url}/{lang}/signup?next=/{lang}/lessons/{slug}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_url(re.compile(rf"/{lang}/lessons/{slug}"))


def _watch(page) -> tuple[list, list]:
    dialogs, errors = [], []

    def on_dialog(dialog):
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return dialogs, errors


def _injected(page) -> dict:
    return page.evaluate("""(forbidden) => {
        const list = document.querySelector('[data-comments-list]');
        const bodies = [...list.querySelectorAll('.comment__body')];
        const bad = bodies.flatMap(b => [...b.querySelectorAll(forbidden)].map(e => e.tagName));
        const handlers = [...list.querySelectorAll('*')].flatMap(e => [...e.attributes]
            .filter(a => a.name.startsWith('on') || /^\\s*(javascript|data|vbscript):/i.test(a.value))
            .map(a => e.tagName + ' ' + a.name + '=' + a.value));
        return {bodies: bodies.length, bad, handlers, pwned: window.__pwned || null};
    }""", FORBIDDEN)


def test_xss_corpus_never_runs_in_chromium(browser, comments_server, artifacts):
    client, csrf = _http_signup(comments_server, "mallory")
    for payload in PAYLOADS:
        response = client.post(f"/api/lessons/{LESSON}/comments", json={"body": payload, "lang": "en"},
                               headers={"X-CSRF-Token": csrf})
        assert response.status_code == 201, response.text
    # as a visitor (cached page + fetched list) and as a signed-in reader (per-user page)
    reader_cookies = []
    reader, _ = _http_signup(comments_server, "reader")
    for name, value in reader.cookies.items():
        reader_cookies.append({"name": name, "value": value, "url": comments_server})
    for cookies in ([], reader_cookies):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        if cookies:
            context.add_cookies(cookies)
        page = context.new_page()
        dialogs, errors = _watch(page)
        for lang in ("en", "ko"):
            page.goto(f"{comments_server}/{lang}/lessons/{LESSON}#comments")
            page.wait_for_selector("[data-comments][data-loaded='1']")
            assert page.locator("[data-comment-form]").count() == (1 if cookies else 0)  # really signed in
            list_url = f"{comments_server}/{lang}/lessons/{LESSON}/comments?sort=oldest"
            seen = []
            for _ in range(8):  # walk every page of the thread
                found = _injected(page)
                assert found["bad"] == [] and found["handlers"] == [] and found["pwned"] is None, found
                seen.append(found["bodies"])
                nxt = page.locator("[data-comments-page]").last
                if nxt.count() == 0 or "→" not in nxt.inner_text():
                    break
                first_id = page.locator("[data-comment-id]").first.get_attribute("data-comment-id")
                nxt.click()
                expect(page.locator("[data-comment-id]").first).to_have_attribute(
                    "data-comment-id", re.compile(rf"^(?!{first_id}$).+"))  # the next page replaced the list
            assert sum(seen) == len(PAYLOADS)
            # hover and click every link inside comments: none may run anything
            for link in page.locator(".comment__body a").all():
                link.hover()
                assert link.get_attribute("href").startswith(("http://", "https://", "mailto:"))
            page.goto(list_url)  # the no-JavaScript page
            page.wait_for_timeout(300)
            assert page.locator(".comment__body script, .comment__body img, .comment__body svg").count() == 0
        page.wait_for_timeout(500)
        assert dialogs == [], dialogs
        assert errors == [], errors
        context.close()


def test_post_reply_and_bell(browser, comments_server, artifacts):
    first = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    ana = first.new_page()
    _, ana_errors = _watch(ana)
    _ui_signup(ana, comments_server, "ana", "ko")
    section = ana.locator("#comments")
    ana.wait_for_selector("[data-comments][data-loaded='1']")
    ana.fill("#comment-body", "`__syncthreads()`를 **왜** 두 번 부르나요?\n\n```cuda\n__syncthreads();\n```")
    section.locator("[data-comment-form] button[type=submit]").click()
    ana.wait_for_selector(".comment .comment__body code")
    assert "댓글 1개" in ana.locator("[data-comment-count]").inner_text()
    # an empty comment is refused with a Korean message
    ana.fill("#comment-body", "   ")
    ana.evaluate("document.querySelector('#comment-body').removeAttribute('required')")
    section.locator("[data-comment-form] button[type=submit]").click()
    error = ana.locator("[data-comments-error]")
    error.wait_for(state="visible")
    assert "빈 댓글" in error.inner_text()

    second = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ben = second.new_page()
    _, ben_errors = _watch(ben)
    _ui_signup(ben, comments_server, "ben", "en")
    ben.wait_for_selector("[data-comments][data-loaded='1']")
    comment = ben.locator(".comment").filter(has_text="ana").first
    comment.locator("[data-action=reply]").click()
    comment.locator(".comment-inline textarea").fill("The second one protects the *next* tile load. See [the guide](https://docs.nvidia.com/cuda/).")
    comment.locator(".comment-inline button[type=submit]").click()
    ben.wait_for_selector(".comment--d1")
    reply = ben.locator(".comment--d1")
    assert reply.locator(".comment__body a").get_attribute("rel") == "nofollow noopener ugc"
    assert "English" in reply.locator(".comment__lang").inner_text()
    assert ben.locator("[data-bell-count]").is_hidden()  # his own reply notifies nobody but ana

    ana.reload()
    ana.wait_for_selector("[data-comments][data-loaded='1']")
    bell = ana.locator("[data-bell-count]")
    bell.wait_for(state="visible")
    assert bell.inner_text() == "1"
    ana.locator("#comments").scroll_into_view_if_needed()
    ana.locator(".comment--d1 [data-action=helpful]").click()
    ana.wait_for_selector(".comment--d1 [data-helpful]")
    ana.screenshot(path=str(artifacts / "comments-ko.png"), full_page=False)
    ana.locator("#comments").screenshot(path=str(artifacts / "comments-section-ko.png"))
    ben.reload()
    ben.wait_for_selector("[data-comments][data-loaded='1']")
    ben.locator("#comments").screenshot(path=str(artifacts / "comments-section-en.png"))

    ana.locator("[data-bell]").click()
    ana.wait_for_url(re.compile(r"/ko/notifications$"))
    assert "ben 님이" in ana.locator(".notice-list").inner_text()
    ana.screenshot(path=str(artifacts / "notifications-ko.png"))
    ana.locator("[data-notification-link]").first.click()
    ana.wait_for_url(re.compile(rf"/ko/lessons/{FLOW_LESSON}#comment-\d+$"))
    ana.wait_for_selector(".comment.is-focused")
    expect(ana.locator("[data-bell-count]")).to_be_hidden()
    assert ana_errors == [] and ben_errors == []
    first.close()
    second.close()


def test_visitor_sees_comments_and_a_sign_in_prompt_and_reports_a_problem(browser, comments_server, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    dialogs, errors = _watch(page)
    page.goto(f"{comments_server}/en/lessons/{LESSON}")
    page.wait_for_selector("[data-comments][data-loaded='1']")
    assert page.locator("[data-comments-signin]").is_visible()
    assert page.locator("[data-comment-form]").count() == 0
    assert page.locator(".comment").count() > 0
    assert re.fullmatch(r"\d+ comments?", page.locator("[data-comment-count]").inner_text())
    page.locator("[data-report-link]").click()
    page.wait_for_url(re.compile(rf"/en/lessons/{LESSON}/report"))
    page.fill("textarea[name=what]", "The figure caption says 16 but the code uses 32.")
    page.screenshot(path=str(artifacts / "report-form-en.png"))
    page.locator("form button[type=submit]").click()
    page.wait_for_selector("[data-report-thanks]")
    assert dialogs == [] and errors == []
    context.close()


def _promote(url: str, username: str, role: str = "instructor") -> None:
    import sqlite3

    with sqlite3.connect(DATABASES[url]) as db:
        db.execute("UPDATE user SET role = ? WHERE username = ?", (role, username))


def test_edit_delete_report_and_moderate_in_the_browser(browser, comments_server, artifacts):
    slug = "parallel-reduction"
    writer_context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    carol = writer_context.new_page()
    _, carol_errors = _watch(carol)
    _ui_signup(carol, comments_server, "carol", "en", slug)
    carol.wait_for_selector("[data-comments][data-loaded='1']")
    for text in ("first draft", "to be deleted"):
        carol.fill("#comment-body", text)
        carol.locator("[data-comment-form] button[type=submit]").click()
        carol.wait_for_selector(f".comment:has-text('{text}')")
    first = carol.locator(".comment").filter(has_text="first draft")
    first.locator("[data-action=edit]").click()
    box = first.locator(".comment-inline textarea")
    assert box.input_value() == "first draft"  # the author gets the markdown source back
    box.fill("second **draft**")
    first.locator(".comment-inline button[type=submit]").click()
    carol.wait_for_selector(".comment:has-text('second draft') .comment__edited")
    doomed = carol.locator(".comment").filter(has_text="to be deleted")
    doomed.locator("[data-action=delete]").click()
    doomed.locator(".comment-inline button[type=submit]").click()
    expect(carol.locator("[data-comments-list]")).not_to_contain_text("to be deleted")

    reader_context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    dan = reader_context.new_page()
    _, dan_errors = _watch(dan)
    _ui_signup(dan, comments_server, "dan", "ko", slug)
    dan.wait_for_selector("[data-comments][data-loaded='1']")
    target = dan.locator(".comment").filter(has_text="second draft")
    assert target.locator("[data-action=edit]").count() == 0 and target.locator("[data-action=delete]").count() == 0
    target.locator("[data-action=report]").click()
    target.locator(".comment-inline textarea").fill("주제와 관계없는 글입니다")
    target.locator(".comment-inline button[type=submit]").click()
    dan.wait_for_selector("[data-reported]")

    _promote(comments_server, "dan")
    dan.goto(f"{comments_server}/ko/reports")
    assert "주제와 관계없는 글입니다" in dan.locator("[data-reported-comments]").inner_text()
    dan.screenshot(path=str(artifacts / "reports-inbox-ko.png"), full_page=True)
    dan.goto(f"{comments_server}/ko/lessons/{slug}")
    dan.wait_for_selector("[data-comments][data-loaded='1']")
    dan.locator("[data-comments-lock='1']").click()
    dan.wait_for_selector("[data-comments-locked]")
    dan.locator(".comment").filter(has_text="second draft").locator("[data-action=hide]").click()
    dan.wait_for_selector(".comment--hidden")

    carol.reload()
    carol.wait_for_selector("[data-comments][data-loaded='1']")
    assert carol.locator("[data-comments-locked]").is_visible()
    assert carol.locator("[data-comment-form]").is_hidden()
    assert "second draft" not in carol.locator("[data-comments-list]").inner_text()
    assert carol_errors == [] and dan_errors == []
    writer_context.close()
    reader_context.close()


def test_phone_layout_with_comments_does_not_scroll_sideways(browser, comments_server, artifacts):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True)
    client, csrf = _http_signup(comments_server, "phoebe")
    root = client.post(f"/api/lessons/{FLOW_LESSON}/comments", headers={"X-CSRF-Token": csrf},
                       json={"body": "a_very_long_identifier_" * 12 + "\n\n```cuda\n" + "x" * 300 + "\n```", "lang": "ko"})
    parent = root.json()["id"]
    for depth in range(5):  # deep replies stay within the screen
        parent = client.post(f"/api/lessons/{FLOW_LESSON}/comments", headers={"X-CSRF-Token": csrf},
                             json={"body": f"reply {depth}", "lang": "ko", "parent_id": parent}).json()["id"]
    page = context.new_page()
    dialogs, errors = _watch(page)
    page.goto(f"{comments_server}/ko/lessons/{FLOW_LESSON}#comments")
    page.wait_for_selector("[data-comments][data-loaded='1']")
    assert page.locator(".comment").count() > 0
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    page.locator("#comments").screenshot(path=str(artifacts / "comments-ko-phone.png"))
    page.goto(f"{comments_server}/en/lessons/{LESSON}#comments")  # the long hostile strings
    page.wait_for_selector("[data-comments][data-loaded='1']")
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    assert dialogs == [] and errors == []
    context.close()
