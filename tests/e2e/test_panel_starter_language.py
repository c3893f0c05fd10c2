"""The editor opens on the starter in the page's language: the Korean lesson page shows the
starter with the Korean comments of starter.ko.yaml, the English page the English one, both the same code."""
import pytest

from tests.panel.support import LiveServer, add_user, sign_in

pytestmark = pytest.mark.e2e
LESSON = "/{lang}/lessons/naive-vs-tiled-gemm"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("starter-e2e"))
    add_user(server.app, "reader")
    yield server
    server.stop()


def editor_text(page, live, lang: str) -> str:
    page.goto(live.url + LESSON.format(lang=lang))
    page.locator("[data-panel]").scroll_into_view_if_needed()  # the panel starts when near the screen
    page.wait_for_selector("[data-panel][data-ready]")
    return page.evaluate("() => document.querySelector('[data-panel]').mkcPanel.editor.getValue()")


def test_korean_page_opens_the_korean_starter_and_english_the_english(browser, live):
    context = browser.new_context(viewport={"width": 390, "height": 844})  # phone width
    page = context.new_page()
    sign_in(page, live.url, "reader")
    ko = editor_text(page, live, "ko")
    assert "이 뼈대는 컴파일되고 실행되지만 아직 맞지 않아요" in ko
    assert "acc = k에 대한 A[row][k] * B[k][col]의 합" in ko
    en = editor_text(page, live, "en")
    assert "This skeleton compiles and runs but is NOT correct yet" in en and "뼈대" not in en
    assert "extern \"C\" __global__ void gemm" in ko and "extern \"C\" __global__ void gemm" in en
    context.close()
