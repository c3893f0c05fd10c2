"""A learner coming back, in Chromium against a real uvicorn, in Korean and English: the course page's
main button continues where their account left off, the
exercise panel shows the account's latest result in a fresh browser, each profile submission row
opens that submission in its lesson's panel, and a thread followed from the lesson page rings the
bell when someone else comments."""
import httpx
import pytest
from playwright.sync_api import expect

from app.core.services import app_services
from tests.panel.support import LiveServer, add_user, insert_graded, passed_result, sign_in, wrong_result

pytestmark = pytest.mark.e2e
GEMM_LESSON = "naive-vs-tiled-gemm"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("return-e2e"))
    tokens = {name: add_user(server.app, name) for name in ("back_en", "back_ko", "poster")}
    server.tokens = tokens
    yield server
    server.stop()


def _complete_first_lesson(live, username: str) -> str:
    from sqlalchemy import select

    from app.accounts.models import User
    from app.bench.web import PROJECT_ROOT
    from app.lessons.catalog import load_catalog
    from app.progress.reading import complete_lesson
    from app.templating import STATIC_DIR

    lessons = [lesson for lesson in load_catalog(PROJECT_ROOT / "lessons", STATIC_DIR, PROJECT_ROOT / "kernels").lessons
               if lesson.published]
    with app_services(live.app).session_factory() as db:
        user = db.scalar(select(User).where(User.username == username))
        complete_lesson(db, user, lessons[0], "en")
        db.commit()
    return lessons[1].slug


def _new_page(browser, lang: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ko-KR" if lang == "ko" else "en-US")
    return context, context.new_page()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_returning_learner_continues_sees_latest_result_and_opens_profile_rows(browser, live, artifacts, lang):
    username = f"back_{lang}"
    second = _complete_first_lesson(live, username)
    older = insert_graded(live.app, username, wrong_result())
    latest = insert_graded(live.app, username, passed_result())

    context, page = _new_page(browser, lang)  # a fresh browser: nothing in localStorage
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, live.url, username, lang)
    page.goto(f"{live.url}/{lang}/")
    button = page.locator("[data-continue]")
    expect(button).to_have_attribute("href", f"/{lang}/lessons/{second}")
    expect(button).to_contain_text("이어서" if lang == "ko" else "Continue")
    page.screenshot(path=str(artifacts / f"return-index-{lang}.png"))

    page.goto(f"{live.url}/{lang}/lessons/{GEMM_LESSON}")
    panel = page.locator("[data-panel]")
    panel.scroll_into_view_if_needed()
    expect(panel.locator("[data-result] [data-verdict=PASSED]")).to_be_visible(timeout=20000)
    panel.screenshot(path=str(artifacts / f"return-latest-result-{lang}.png"))

    page.goto(f"{live.url}/{lang}/profile")
    row = page.locator(f"tr[data-submission='{older}']")
    link = row.locator("[data-submission-link]")
    assert link.get_attribute("href") == f"/{lang}/lessons/{GEMM_LESSON}?submission={older}"
    assert "gemm" not in row.inner_text().split()  # the exercise's title, not its id
    page.locator(f"tr[data-submission='{latest}'] [data-submission-link]").wait_for()
    page.screenshot(path=str(artifacts / f"return-profile-{lang}.png"), full_page=True)
    link.click()
    page.wait_for_url(f"**/lessons/{GEMM_LESSON}?submission={older}")
    expect(page.locator("[data-panel] [data-result] [data-verdict=WRONG_ANSWER]")).to_be_visible(timeout=20000)
    assert errors == []
    context.close()


def test_following_a_thread_from_the_lesson_page_rings_the_bell_on_a_new_comment(browser, live, artifacts):
    slug = "matrix-layout-coalescing"
    context, page = _new_page(browser, "ko")
    sign_in(page, live.url, "back_ko", "ko")
    page.goto(f"{live.url}/ko/lessons/{slug}")
    page.locator("#comments").scroll_into_view_if_needed()
    follow = page.locator("[data-comments-follow]")
    expect(follow).to_have_attribute("aria-pressed", "false")
    follow.click()
    expect(page.locator("[data-comments-follow]")).to_have_attribute("aria-pressed", "true")
    page.locator("#comments").screenshot(path=str(artifacts / "return-follow-ko.png"))

    response = httpx.post(f"{live.url}/api/lessons/{slug}/comments", json={"body": "Why two barriers?", "lang": "en"},
                          headers={"Authorization": f"Bearer {live.tokens['poster']}"}, timeout=10)
    assert response.status_code == 201, response.text
    page.reload()
    bell = page.locator("[data-bell-count]")
    expect(bell).to_be_visible(timeout=10000)
    assert bell.inner_text().strip() == "1"
    context.close()
