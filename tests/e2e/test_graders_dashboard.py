"""The graders' dashboard in Chromium: filters, a flagged submission first, its source and full
result, an override through the form (audit row, the learner sees it), both languages."""
import re

import pytest

from app.core.config import PROJECT_ROOT
from tests.panel.support import LiveServer, add_user, insert_graded, passed_result, sign_in, total_xp, wrong_result

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("graders-e2e"))
    add_user(server.app, "gina", "grader")
    add_user(server.app, "lee")
    add_user(server.app, "kim")
    tiled = (PROJECT_ROOT / "kernels/gemm/tiled.cu").read_text()
    server.ids = {
        "fast": insert_graded(server.app, "kim", passed_result(fast=True), source=tiled),
        "lee_pass": insert_graded(server.app, "lee", passed_result(), source=tiled),
        "lee_wrong": insert_graded(server.app, "lee", wrong_result()),
    }
    yield server
    server.stop()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_dashboard_lists_flagged_first_and_filters(browser, live, artifacts, lang):
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    page = context.new_page()
    sign_in(page, live.url, "gina", lang)
    page.locator("[data-graders-link]").click()
    page.wait_for_selector("[data-row]")
    rows = page.locator("[data-row]")
    assert rows.first.get_attribute("data-row") == str(live.ids["fast"])
    assert "is-flagged" in rows.first.get_attribute("class")
    page.screenshot(path=str(artifacts / f"graders-dashboard-{lang}.png"), full_page=True)
    page.fill("input[name=learner]", "lee")
    page.select_option("select[name=verdict]", "WRONG_ANSWER")
    page.locator(".graders__filters button[type=submit]").click()
    page.wait_for_url(re.compile(r"verdict=WRONG_ANSWER"))
    assert [r.get_attribute("data-row") for r in page.locator("[data-row]").all()] == [str(live.ids["lee_wrong"])]
    csv_link = page.locator("[data-export-csv]").get_attribute("href")
    assert "learner=lee" in csv_link and "verdict=WRONG_ANSWER" in csv_link
    context.close()


def test_override_through_the_form_and_learner_sees_it(browser, live, artifacts):
    context = browser.new_context(viewport={"width": 1360, "height": 1400})
    page = context.new_page()
    sign_in(page, live.url, "gina")
    sub = live.ids["lee_pass"]
    page.goto(f"{live.url}/en/graders/submissions/{sub}")
    assert page.locator(".graders__source .highlight").count() == 1
    assert page.locator("[data-verdict=PASSED] svg .xres__bar").count() == 3
    page.screenshot(path=str(artifacts / "graders-detail-en.png"), full_page=True)
    before = total_xp(live.app, "lee")
    form = page.locator("[data-form=override]")
    form.locator("select[name=verdict]").select_option("WRONG_ANSWER")
    form.locator("button[type=submit]").click()
    # the reason is required: the browser refuses the empty form, nothing is sent
    assert page.locator("[data-audit-row]").count() == 0
    form.locator("textarea[name=reason]").fill("reads outside B for odd N")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("[data-audit-row=override]")
    assert "reads outside B for odd N" in page.locator("[data-audit]").inner_text()
    assert page.locator("[data-effective-verdict]").get_attribute("data-effective-verdict") == "WRONG_ANSWER"
    assert total_xp(live.app, "lee") == before - 70
    page.goto(f"{live.url}/ko/graders/submissions/{sub}")
    page.screenshot(path=str(artifacts / "graders-detail-ko.png"), full_page=True)
    context.close()
    learner = browser.new_context(viewport={"width": 1280, "height": 900})
    lp = learner.new_page()
    sign_in(lp, live.url, "lee")
    lp.goto(f"{live.url}/en/lessons/naive-vs-tiled-gemm")
    lp.locator("[data-panel]").scroll_into_view_if_needed()  # the panel starts when near the screen
    lp.wait_for_selector("[data-panel][data-ready]")
    lp.locator("[data-history-box] summary").click()
    lp.locator(f"[data-show-submission='{sub}']").click()
    review = lp.locator("[data-result] [data-review=override]")
    review.wait_for()
    assert "reads outside B for odd N" in review.inner_text() and "Wrong answer" in review.inner_text()
    # learners are refused the dashboard
    response = lp.goto(f"{live.url}/en/graders")
    assert response.status == 403
    learner.close()
