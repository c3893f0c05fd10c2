"""A visitor's progress survives signing up: read a lesson, mark it complete, sign up, and watch
the strip take the merged progress without a reload (Chromium, real uvicorn, real SQLite)."""
from __future__ import annotations

import re
import uuid

import pytest

pytestmark = pytest.mark.e2e

LESSON = "naive-vs-tiled-gemm"  # lesson 04: 30 XP in its lesson.yaml
PASSWORD = "a long and unusual passphrase"


def _strip_text(page) -> str:
    return " ".join(page.locator("[data-strip]").inner_text().split())


def test_visitor_progress_is_merged_on_sign_up_without_reload(browser, server_url, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", timezone_id="Asia/Seoul")
    page = context.new_page()
    errors, navigations, merges = [], [], []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("framenavigated", lambda frame: navigations.append(frame.url) if frame == page.main_frame else None)
    page.on("request", lambda req: merges.append(req.url) if "/api/progress/merge" in req.url else None)

    # 1. a visitor reads lesson 04 and marks it complete: stored in this browser, and the page says so
    page.goto(f"{server_url}/en/lessons/{LESSON}")
    assert "stored in this browser only" in page.locator(".progress-card .local-note").inner_text()
    page.locator("[data-mark-complete]").click()
    assert page.locator("[data-mark-complete]").get_attribute("aria-pressed") == "true"
    assert "1/7 lessons" in _strip_text(page) and "0 XP" in _strip_text(page)
    stored = page.evaluate("JSON.parse(localStorage.getItem('mkc-progress-v1'))")
    assert LESSON in stored["completed"] and stored["read"][LESSON] == ["en"]

    # 2. sign up from the header link; the form brings the reader back to the lesson
    page.locator("[data-signup-link]").click()
    page.wait_for_url(re.compile(r"/en/signup"))
    assert page.locator("[data-tz-field]").input_value() == "Asia/Seoul"  # the browser's zone
    name = "reader" + uuid.uuid4().hex[:6]
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    with page.expect_navigation() as landing:
        page.locator("form[data-auth-form] button[type=submit]").click()
    page.wait_for_url(re.compile(rf"/en/lessons/{LESSON}$"))
    landed_html = landing.value.text()
    # the server's first answer did not know the visitor's progress yet ...
    assert 'data-completed=""' in landed_html and f'data-signed-in="{name}"' in landed_html
    navigations_after_landing = len(navigations)

    # 3. ... the script merges it and repaints the strip in place
    page.wait_for_selector(f"[data-strip][data-completed*='{LESSON}']")  # (string predicates are eval: the CSP forbids it)
    strip = _strip_text(page)
    assert "1/7 lessons" in strip and "30 XP" in strip and "1/12 achievements" in strip
    assert page.locator("[data-announce] .announce__item").first.is_visible()
    assert "First page turned" in page.locator("[data-announce]").inner_text()
    assert page.locator("[data-mark-complete]").get_attribute("aria-pressed") == "true"
    assert page.locator("[data-mark-complete]").inner_text() == "✓ Completed"  # no undo once in the account
    assert "saved to your account" in page.locator(".progress-card .local-note").inner_text()
    assert len(navigations) == navigations_after_landing  # no reload happened
    assert len(merges) == 1
    page.screenshot(path=str(artifacts / "accounts-merged-strip.png"), full_page=False)

    # 4. the merge is on the server: a fresh page (and the profile) show it; no second merge is sent
    page.goto(f"{server_url}/en/")
    assert f'[data-lesson-slug="{LESSON}"] .mark--done' and page.locator(f'[data-lesson-slug="{LESSON}"] .mark--done').count() == 1
    assert "1/7 lessons" in _strip_text(page)
    page.goto(f"{server_url}/en/profile")
    assert page.locator('[data-achievement="first_lesson"][data-earned="yes"]').count() == 1
    assert page.locator(f'[data-xp-entry="lesson:{LESSON}"]').count() == 1
    page.screenshot(path=str(artifacts / "accounts-profile.png"), full_page=True)
    assert len(merges) == 1

    # the account holds it now, so the browser's copy is cleared (a shared computer's next
    # account must not receive it)
    assert page.evaluate("localStorage.getItem('mkc-progress-v1')") is None

    # 5. sign out: the header offers sign in again; signing back in shows the account's progress
    page.locator(".account-nav button[type=submit]").click()
    page.wait_for_url(re.compile(r"/en/$"))
    assert page.locator("[data-signin-link]").is_visible() and "0/7 lessons" in _strip_text(page)
    page.locator("[data-signin-link]").click()
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.locator("form[data-auth-form] button[type=submit]").click()
    page.wait_for_url(re.compile(r"/en/$"))
    assert "1/7 lessons" in _strip_text(page) and "30 XP" in _strip_text(page)
    assert len(merges) == 1
    assert errors == []
    context.close()


def test_sign_in_form_shows_a_bilingual_error(browser, server_url):
    context = browser.new_context(locale="ko-KR")
    page = context.new_page()
    page.goto(f"{server_url}/ko/signin")
    page.fill("input[name=username]", "nobody-here")
    page.fill("input[name=password]", "wrong password 123")
    page.locator("form[data-auth-form] button[type=submit]").click()
    assert "사용자 이름 또는 비밀번호가 올바르지 않아요." in page.locator(".form-error").inner_text()
    context.close()


def test_signed_in_mark_complete_goes_to_the_server(browser, server_url, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    slug = "parallel-reduction"
    page.goto(f"{server_url}/ko/signup?next=/ko/lessons/{slug}")
    name = "학습자" + uuid.uuid4().hex[:4]
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.locator("form[data-auth-form] button[type=submit]").click()
    page.wait_for_url(re.compile(rf"/ko/lessons/{slug}$"))
    assert page.locator(".account-nav [data-account-name]").inner_text() == name
    assert "계정에 저장돼요" in page.locator(".progress-card .local-note").inner_text()
    page.locator("[data-mark-complete]").click()
    page.wait_for_selector("[data-strip][data-completed*='parallel-reduction']")
    assert "업적 달성" in page.locator("[data-announce]").inner_text()
    assert page.evaluate("localStorage.getItem('mkc-progress-v1')") is None  # nothing local for an account
    page.screenshot(path=str(artifacts / "accounts-ko-mark-complete.png"))
    page.reload()
    assert page.locator("[data-mark-complete]").get_attribute("aria-pressed") == "true"
    assert errors == []
    context.close()
