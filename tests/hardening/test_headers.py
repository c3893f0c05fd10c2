"""A Content-Security-Policy without inline script, and the usual security headers.

Before the fix there was no CSP and base.html ran an inline script. The HTTP test reads every kind of
page's headers and markup; the browser test opens the pages in Chromium (signed out and in, the lesson
with its exercise editor, the ladder, the profile) and fails on any CSP violation the browser reports,
and checks that the early theme script still runs."""
from __future__ import annotations

import re

import pytest

from tests.accounts.conftest import LESSON, signup

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/(?:ld\+)?json\")[^>]*>", re.I)
EVENT_ATTRIBUTE = re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.I)
PAGES = ["/ko/", "/en/", f"/en/lessons/{LESSON}", f"/ko/lessons/{LESSON}", "/en/ladder", "/en/signin",
         "/ko/signup", "/en/profile", "/en/authoring", "/en/no-such-page"]


def _directives(policy: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in (part.strip() for part in policy.split(";")) if d}


def test_every_page_has_a_strict_policy_and_no_inline_script(new_client):
    client = new_client()
    signup(client, "hana")
    for path in PAGES:
        answer = client.get(path)
        policy = _directives(answer.headers["content-security-policy"])
        assert policy["script-src"] == ["'self'"], path
        assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"], path
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["cross-origin-opener-policy"] == "same-origin"
        assert "strict-transport-security" not in answer.headers  # plain HTTP: no pinning
        if answer.headers.get("content-type", "").startswith("text/html"):
            assert not INLINE_SCRIPT.search(answer.text), (path, INLINE_SCRIPT.search(answer.text).group(0))
            assert not EVENT_ATTRIBUTE.search(answer.text), (path, EVENT_ATTRIBUTE.search(answer.text).group(0))
    api = client.get("/api/me")
    assert "content-security-policy" in api.headers


def test_https_responses_pin_https(new_client):
    client = new_client()
    client.base_url = "https://testserver"
    assert "max-age=" in client.get("/en/").headers["strict-transport-security"]


@pytest.mark.e2e
def test_pages_run_under_the_policy_in_a_real_browser(browser, server_url):
    context = browser.new_context()
    page = context.new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: violations.append(str(e)))
    for path in ["/en/", f"/en/lessons/{LESSON}", "/ko/ladder"]:
        page.goto(server_url + path)
        page.wait_for_load_state("networkidle")
    name = "csp_reader"
    page.goto(f"{server_url}/en/signup")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", "correct horse battery")
    page.fill("input[name=password2]", "correct horse battery")
    page.click("form[action='/en/signup'] button[type=submit]")
    page.wait_for_load_state("networkidle")
    for path in [f"/en/lessons/{LESSON}", "/en/profile"]:
        page.goto(server_url + path)
        page.wait_for_load_state("networkidle")
    # the early theme script (static/js/theme.js) still runs before the page is shown
    page.evaluate("localStorage.setItem('mkc-theme', 'dark')")
    page.goto(server_url + "/en/")
    theme = page.evaluate("document.documentElement.dataset.theme")
    context.close()
    assert not violations, violations
    assert theme == "dark"
