"""Fragment addresses opened directly in Chromium (a copied link, a new tab) lead to the page that holds
them, with the site around it, instead of a bare piece of HTML; scripts still get the fragment."""
from __future__ import annotations

import re

import pytest

from tests.panel.support import LiveServer, add_user, insert_graded, passed_result, sign_in

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("fragments-direct"))
    add_user(server.app, "direct")
    server.sub = insert_graded(server.app, "direct", passed_result())
    yield server
    server.stop()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_fragments_opened_as_pages_go_to_their_page(browser, live, lang):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live.url}/{lang}/ladder/source/01_naive")
    assert re.search(rf"/{lang}/ladder#[\w-]+$", page.url) and page.locator("header.site-header, .site-header").count()

    sign_in(page, live.url, "direct", lang)
    page.goto(f"{live.url}/{lang}/panel/submissions/{live.sub}")
    assert page.url.endswith(f"/{lang}/lessons/naive-vs-tiled-gemm?submission={live.sub}#exercise")
    page.wait_for_selector("[data-panel] [data-result] [data-verdict=PASSED]", timeout=20000)
    page.goto(f"{live.url}/{lang}/panel/exercises/gemm/history")
    assert page.url.endswith(f"/{lang}/lessons/naive-vs-tiled-gemm#exercise")
    # what the page's scripts fetch is still the fragment
    fragment = page.evaluate(f"fetch('/{lang}/panel/submissions/{live.sub}').then(r => r.text())")
    assert "data-result-state" in fragment and "<html" not in fragment
    context.close()
