"""The classes' pages over real HTTP, in both languages: an instructor creates a class and an
assignment with forms, a learner joins by the link, both see what they should; refused forms come
back with what was typed and the reason."""
from __future__ import annotations

import datetime as dt
import re

import pytest
from fastapi.testclient import TestClient

from app.core.services import app_services
from app.factory import create_app
from tests.accounts.conftest import CSRF_FIELD, set_role, signup


@pytest.fixture
def app(settings):
    return create_app(settings)


@pytest.fixture
def browsers(app):
    opened = []

    def make() -> TestClient:
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        opened.append(client)
        return client
    yield make
    for client in opened:
        client.__exit__(None, None, None)


def _post(client, page, action, data):
    token = CSRF_FIELD.search(client.get(page).text).group(1)
    return client.post(action, data={"csrf_token": token, **data}, follow_redirects=False)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_term_through_the_pages(app, browsers, lang, submit_passed):
    teacher, learner = browsers(), browsers()
    assert signup(teacher, "kim", lang=lang, tz="Asia/Seoul").status_code == 303
    set_role(app, "kim", "instructor")
    assert signup(learner, "lee", lang=lang, tz="America/Los_Angeles").status_code == 303

    made = _post(teacher, f"/{lang}/classes", f"/{lang}/classes",
                 {"name": "GPU 101", "term": "2026 Fall", "notice_lang": lang, "tz": "Asia/Seoul"})
    assert made.status_code == 303
    class_url = made.headers["location"].split("?")[0]
    page = teacher.get(made.headers["location"]).text
    assert {"en": "Class created.", "ko": "반을 만들었어요."}[lang] in page
    link = re.search(r'data-invite-link>([^<]+)<', page).group(1)

    due = (dt.datetime.now(dt.UTC) + dt.timedelta(days=3)).astimezone(dt.timezone(dt.timedelta(hours=9)))
    created = _post(teacher, class_url, f"{class_url}/assignment", {
        "title": "Week 1", "opens_at": "2026-01-01T09:00", "due_at": due.strftime("%Y-%m-%dT23:59"),
        "exercises": "gemm", "lessons": "naive-vs-tiled-gemm", "late_policy": "mark", "complete_tier": "passed"})
    assert created.status_code == 303, created.text

    join_path = "/" + link.split("/", 3)[3]
    joined = _post(learner, join_path, f"/{lang}/join", {"code": link.rsplit("/", 1)[1]})
    assert joined.status_code == 303
    mine = learner.get(joined.headers["location"]).text
    assert "Week 1" in mine and f"{due.strftime('%Y-%m-%d')} 23:59 KST" in mine
    assert 'data-left-item="gemm"' in mine and "PST" in mine
    # the learner sees no roster, no invite, no gradebook
    assert "data-roster" not in mine and "data-invite-code" not in mine
    assert learner.get(f"{class_url}/gradebook").status_code == 403

    submit_passed("lee", "gemm", 1.7)
    book = teacher.get(f"{class_url}/gradebook").text
    assert re.search(r'data-learner="lee">.*?data-score>1/2<', book, re.S)
    assert "data-lms" not in book  # a class made on the site has no LMS line
    csv = teacher.get(f"/api/{class_url.split('/', 2)[2]}/gradebook.csv").text
    assert csv.splitlines()[0] == "username,email,Week 1 [score],Week 1 [out of],Week 1 [late]"
    assert csv.splitlines()[1] == "lee,,1,2,no"


def test_refused_form_keeps_what_was_typed(app, browsers):
    teacher = browsers()
    signup(teacher, "kim", lang="ko")
    set_role(app, "kim", "instructor")
    answer = _post(teacher, "/ko/classes", "/ko/classes", {"name": "내 반", "term": "가을", "notice_lang": "ko",
                                                          "tz": "Mars/Base"})
    assert answer.status_code == 400
    assert "목록에 있는 시간대를 골라 주세요" in answer.text
    assert 'value="내 반"' in answer.text and 'value="Mars/Base"' in answer.text


def test_visitor_is_sent_to_sign_in_and_learner_cannot_create(app, browsers):
    visitor = browsers()
    response = visitor.get("/en/classes/1", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/en/signin?next=/en/classes/1"
    learner = browsers()
    signup(learner, "lee")
    page = learner.get("/en/classes").text
    assert "data-create-class" not in page
    refused = _post(learner, "/en/classes", "/en/classes", {"name": "Mine", "notice_lang": "en", "tz": "UTC"})
    assert refused.status_code == 403


def test_closed_invite_link_says_so(app, browsers):
    teacher, learner = browsers(), browsers()
    signup(teacher, "kim")
    set_role(app, "kim", "instructor")
    signup(learner, "lee")
    class_url = _post(teacher, "/en/classes", "/en/classes", {"name": "A", "notice_lang": "en", "tz": "UTC"}
                      ).headers["location"].split("?")[0]
    code = re.search(r"data-invite-code>([A-Z0-9]+)<", teacher.get(class_url).text).group(1)
    assert _post(teacher, class_url, f"{class_url}/invite", {"op": "close"}).status_code == 303
    closed = learner.get(f"/en/join/{code}")
    assert closed.status_code == 404 and "closed or was replaced" in closed.text


@pytest.fixture
def submit_passed(app):
    """A graded PASSED submission as the dispatcher would store it (no GPU here)."""
    import json

    from app.accounts.users import find_user
    from app.submissions.models import Submission

    def make(username, exercise, ci_low):
        with app_services(app).session_factory() as db:
            user = find_user(db, username)
            result = {"verdict": "PASSED", "message": {"code": "PASSED", "params": {}}, "tiers": [],
                      "speedups": [{"against": "tiled", "size": {"M": 1024}, "value": ci_low + 0.1, "ci_low": ci_low,
                                    "ci_high": ci_low + 0.2, "confidence": 0.95}], "gpu": {"name": "NVIDIA H100"}}
            db.add(Submission(user_id=user.id, exercise_id=exercise, source="//", state="done", verdict="PASSED",
                              result=json.dumps(result)))
            db.commit()
    return make


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_strike_through_the_board_form_notifies_the_learner(app, browsers, submit_passed, lang):
    teacher, learner = browsers(), browsers()
    signup(teacher, "kim", lang=lang)
    set_role(app, "kim", "instructor")
    signup(learner, "lee", lang=lang)
    class_url = _post(teacher, f"/{lang}/classes", f"/{lang}/classes", {"name": "A", "notice_lang": lang, "tz": "UTC"}
                      ).headers["location"].split("?")[0]
    page = teacher.get(class_url).text
    settings = {"name": "A", "term": "", "notice_lang": lang, "tz": "UTC", "board_enabled": "1"}
    assert _post(teacher, class_url, f"{class_url}/settings", settings).status_code == 303
    code = re.search(r"data-invite-code>([A-Z0-9]+)<", page).group(1)
    _post(learner, f"/{lang}/join/{code}", f"/{lang}/join", {"code": code})
    submit_passed("lee", "gemm", 2.5)
    board = teacher.get(f"{class_url}/boards/gemm").text
    sub = re.search(r'data-strike="(\d+)"', board).group(1)
    refused = _post(teacher, f"{class_url}/boards/gemm", f"{class_url}/boards/gemm/strike",
                    {"submission_id": sub, "reason": "  "})
    assert refused.status_code == 400 and {"en": "A reason is required", "ko": "이유를 적어 주세요"}[lang] in refused.text
    struck = _post(teacher, f"{class_url}/boards/gemm", f"{class_url}/boards/gemm/strike",
                   {"submission_id": sub, "reason": "copied from a classmate"})
    assert struck.status_code == 303
    after = teacher.get(f"{class_url}/boards/gemm").text
    assert 'data-board-empty' in after
    assert re.search(rf'data-struck="{sub}">#{sub} · lee · .*?copied from a classmate', after, re.S)
    bell = learner.get(f"/{lang}/notifications").text
    assert {"en": f"A grader removed your submission #{sub}", "ko": f"채점자가 내 제출 #{sub}"}[lang] in bell
    assert "copied from a classmate" in bell
    as_learner = _post(learner, f"/{lang}/classes", f"{class_url}/boards/gemm/strike", {"submission_id": sub, "reason": "r"})
    assert as_learner.status_code == 403


@pytest.mark.parametrize("field, value, action", [("user_id", "99999999999999999999", "remove"),
                                                  ("user_id", "abc", "remove"),
                                                  ("assignment_id", "-1", "delete")])
def test_odd_ids_in_forms_are_a_clear_404(app, browsers, field, value, action):
    teacher = browsers()
    signup(teacher, "kim")
    set_role(app, "kim", "instructor")
    class_url = _post(teacher, "/en/classes", "/en/classes", {"name": "A", "notice_lang": "en", "tz": "UTC"}
                      ).headers["location"].split("?")[0]
    answer = _post(teacher, class_url, f"{class_url}/{action}", {field: value})
    assert answer.status_code == 404 and 'data-error' in answer.text


def test_a_strike_on_a_board_that_is_off_or_unknown_is_a_clear_404(app, browsers):
    """Refused before anything is written: the board is read first (read after the failed strike's
    rollback, its refusal could not render the page for the signed-in grader: a 500)."""
    teacher = browsers()
    signup(teacher, "kim")
    set_role(app, "kim", "admin")  # an administrator strikes on every board, the site's and every class's
    class_url = _post(teacher, "/en/classes", "/en/classes", {"name": "A", "notice_lang": "en", "tz": "UTC"}
                      ).headers["location"].split("?")[0]
    board_off = _post(teacher, class_url, f"{class_url}/boards/gemm/strike", {"submission_id": "1", "reason": "copy"})
    assert board_off.status_code == 404 and "This class has no leaderboards." in board_off.text
    unknown = _post(teacher, "/en/boards/gemm", "/en/boards/no-such-exercise/strike", {"submission_id": "x"})
    assert unknown.status_code == 404 and "Not found." in unknown.text
