"""The graders' override form in Chromium: disabled with its reason while a submission waits for a
GPU; on a graded one the verdict starts empty, and a refused override keeps the typed reason and the
submission's own address; both languages, axe-core finds nothing serious."""
from __future__ import annotations

import pytest
from sqlalchemy import update

from app.core.services import app_services
from app.submissions.models import Submission
from tests.e2e.test_a11y import AXE
from tests.panel.support import LiveServer, add_user, insert_graded, passed_result, sign_in

pytestmark = pytest.mark.e2e
AXE_SERIOUS = """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help)"""


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("override-form"))
    add_user(server.app, "gina", "grader")
    add_user(server.app, "lee")
    waiting = insert_graded(server.app, "lee", passed_result(), record=False)
    with app_services(server.app).session_factory() as db:
        db.execute(update(Submission).where(Submission.id == waiting).values(state="awaiting_gpu", verdict=None))
        db.commit()
    server.ids = {"waiting": waiting, "graded": insert_graded(server.app, "lee", passed_result())}
    yield server
    server.stop()


def _axe(page) -> list[str]:
    page.evaluate(AXE.read_text(encoding="utf-8"))
    return page.evaluate(AXE_SERIOUS)


@pytest.mark.parametrize(("lang", "why"), [("en", "Not graded yet"), ("ko", "아직 채점되지 않았어요")])
def test_override_is_disabled_with_its_reason_while_waiting_for_a_gpu(browser, live, lang, why):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    sign_in(page, live.url, "gina", lang)
    page.goto(f"{live.url}/{lang}/graders/submissions/{live.ids['waiting']}")
    form = page.locator("[data-form=override]")
    assert form.locator("button[type=submit]").is_disabled()
    assert form.locator("select[name=verdict]").is_disabled()
    assert why in form.locator("[data-disabled-reason=override]").inner_text()
    assert _axe(page) == []
    context.close()


@pytest.mark.parametrize(("lang", "refusal"), [("en", "already has that verdict"), ("ko", "이미")])
def test_a_refused_override_keeps_the_reason_and_the_address(browser, live, lang, refusal):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    sign_in(page, live.url, "gina", lang)
    address = f"{live.url}/{lang}/graders/submissions/{live.ids['graded']}"
    page.goto(address)
    form = page.locator("[data-form=override]")
    assert form.locator("select[name=verdict]").input_value() == ""  # no verdict is chosen for the grader
    form.locator("textarea[name=reason]").fill("the 1024 case is hard-coded, 그래도 통과")
    form.locator("select[name=verdict]").select_option("PASSED")  # what it has already: refused
    with page.expect_navigation():
        form.locator("button[type=submit]").click()
    assert refusal in page.locator("[data-form-error]").inner_text()
    form = page.locator("[data-form=override]")
    assert form.locator("textarea[name=reason]").input_value() == "the 1024 case is hard-coded, 그래도 통과"
    assert form.locator("select[name=verdict]").input_value() == "PASSED"
    assert page.url == address
    page.reload()
    assert page.url == address and page.locator("[data-form-error]").count() == 0
    assert _axe(page) == []
    context.close()
