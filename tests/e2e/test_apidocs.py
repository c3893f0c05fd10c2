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
        # the documentation is the schema's English; the bar above it speaks the reader's Korean
        assert page.evaluate("document.documentElement.lang") == "en"
        bar = page.locator("[data-apidocs-bar]")
        assert bar.get_attribute("lang") == "ko" and bar.locator("[data-back-to-site]").get_attribute("href") == "/ko/"
    finally:
        context.close()
    assert foreign == [] and problems == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_swagger_page_has_readable_contrast_and_follows_dark_mode(browser, server_url, scheme):
    from tests.e2e.test_a11y import AXE

    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server_url + "/docs")
        page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
        page.evaluate(AXE.read_text(encoding="utf-8"))
        contrast = page.evaluate("async () => (await axe.run(document, {runOnly: ['color-contrast']}))"
                                 ".violations.flatMap(v => v.nodes.map(n => n.target.join(' ')))")
        assert contrast == []
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(15, 18, 24)") is (scheme == "dark")
        assert page.locator("[data-back-to-site]").get_attribute("href") == "/en/"
    finally:
        context.close()


# Every serious or critical axe-core rule, with the elements it names (Swagger UI's own markup included).
AXE_SERIOUS_NODES = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .flatMap(v => v.nodes.map(n => v.id + ': ' + n.target.join(' ')))"""


@pytest.mark.parametrize(("scheme", "lang"), [("light", "en-US"), ("dark", "ko-KR")])
def test_swagger_page_has_no_serious_axe_findings_even_with_operations_open(browser, server_url, scheme, lang):
    from tests.e2e.test_a11y import AXE

    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme, locale=lang)
    page = context.new_page()
    try:
        page.goto(server_url + "/docs")
        page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
        page.evaluate(AXE.read_text(encoding="utf-8"))
        assert page.evaluate(AXE_SERIOUS_NODES) == []
        # an operation opened (its parameters, responses and "Try it out") and a schema opened
        page.locator(".opblock-summary-control").first.click()
        page.wait_for_selector(".opblock-body")
        models = page.locator(".models-control")
        if models.count():
            models.first.click()
        page.wait_for_timeout(300)
        assert page.evaluate(AXE_SERIOUS_NODES) == []
    finally:
        context.close()
