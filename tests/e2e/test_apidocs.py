"""/docs and /redoc render from our own static files: no request leaves the server,
no Content-Security-Policy violation, and the operations of /openapi.json appear."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("path, ready", [("/docs", ".swagger-ui .opblock"), ("/redoc", "[data-section-id], .api-content")])
def test_api_docs_render_offline_under_the_csp(browser, server_url, path, ready):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    page = context.new_page()
    foreign, problems = [], []
    # ReDoc's footer asks for its logo from a CDN: the CSP blocks it, so nothing may *arrive* from elsewhere.
    page.on("requestfinished", lambda req: foreign.append(req.url) if not req.url.startswith((server_url, "data:")) else None)
    page.on("console", lambda msg: problems.append(msg.text)
            if "Content Security Policy" in msg.text and "cdn.redoc.ly" not in msg.text else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    try:
        response = page.goto(server_url + path)
        assert response.status == 200 and "content-security-policy" in response.headers
        page.wait_for_selector(ready, timeout=30_000)
        assert "submissions" in page.content()
        assert page.evaluate("document.documentElement.lang") == "ko"
    finally:
        context.close()
    assert foreign == [] and problems == []
