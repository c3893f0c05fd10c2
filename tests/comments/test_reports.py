"""Report a problem: open to visitors, CSRF-checked, honeypot, rate limit, and the inbox."""
from __future__ import annotations

import re

from sqlalchemy import func, select

from app.comments.limits import CommentsConfig
from app.core.services import app_services
from tests.comments.conftest import CSRF_FIELD, LESSON


def _count(app) -> int:
    from app.reports.models import ProblemReport

    with app_services(app).session_factory() as db:
        return db.scalar(select(func.count()).select_from(ProblemReport))


def _form(browser, lang="en", **params):
    page = browser.client.get(f"/{lang}/lessons/{LESSON}/report", params=params)
    assert page.status_code == 200
    return page, CSRF_FIELD.search(page.text).group(1)


def test_visitor_reports_a_problem_with_lesson_and_language_filled_in(app, visitor, teacher):
    page, token = _form(visitor, "ko", quote="타일 크기는 16")
    assert "타일 크기는 16" in page.text and "한국어" in page.text
    sent = visitor.client.post(f"/ko/lessons/{LESSON}/report",
                               data={"csrf_token": token, "what": "오타가 있어요", "quote": "타일 크기는 16", "website": ""})
    assert sent.status_code == 200 and "data-report-thanks" in sent.text
    assert _count(app) == 1
    inbox = teacher.client.get("/en/reports").text
    assert "오타가 있어요" in inbox and f'href="/ko/lessons/{LESSON}"' in inbox and "visitor" in inbox
    report_id = re.search(r'data-problem-report="(\d+)"', inbox).group(1)
    resolved = teacher.client.post(f"/en/reports/{report_id}/resolve", data={"csrf_token": teacher.csrf},
                                   follow_redirects=False)
    assert resolved.status_code == 303
    assert "오타가 있어요" not in teacher.client.get("/en/reports").text
    assert "오타가 있어요" in teacher.client.get("/en/reports?status=resolved").text


def test_csrf_honeypot_and_empty(app, visitor):
    _, token = _form(visitor)
    no_token = visitor.client.post(f"/en/lessons/{LESSON}/report", data={"what": "typo"})
    assert no_token.status_code == 403
    bot = visitor.client.post(f"/en/lessons/{LESSON}/report",
                              data={"csrf_token": token, "what": "buy now", "website": "http://spam.example"})
    assert bot.status_code == 200 and "data-report-thanks" in bot.text  # looks accepted...
    assert _count(app) == 0  # ...but nothing was stored
    empty = visitor.client.post(f"/en/lessons/{LESSON}/report", data={"csrf_token": token, "what": "  \n "})
    assert empty.status_code == 400 and "Describe the problem in a few words." in empty.text
    _, ko_token = _form(visitor, "ko")
    empty_ko = visitor.client.post(f"/ko/lessons/{LESSON}/report", data={"csrf_token": ko_token, "what": " "})
    assert "문제를 몇 마디로 설명해 주세요." in empty_ko.text
    assert visitor.client.get("/en/lessons/no-such/report").status_code == 404


def test_rate_limit_per_address(app, visitor, browser_factory):
    app_services(app).get(CommentsConfig).problem_reports = (2, 600)
    _, token = _form(visitor)
    for i in range(2):
        ok = visitor.client.post(f"/en/lessons/{LESSON}/report", data={"csrf_token": token, "what": f"problem {i}"})
        assert ok.status_code == 200
    limited = visitor.client.post(f"/en/lessons/{LESSON}/report", data={"csrf_token": token, "what": "third"})
    assert limited.status_code == 429 and "Too many reports from here" in limited.text
    assert "third" in limited.text  # what they typed is kept in the form
    other = browser_factory()  # same address (testclient): the limit follows the address, not the cookie
    _, other_token = _form(other)
    assert other.client.post(f"/en/lessons/{LESSON}/report",
                             data={"csrf_token": other_token, "what": "x"}).status_code == 429
    assert _count(app) == 2


def test_every_lesson_links_to_its_report_form(visitor):
    for lang in ("ko", "en"):
        page = visitor.client.get(f"/{lang}/lessons/{LESSON}").text
        assert f'href="/{lang}/lessons/{LESSON}/report"' in page and "data-report-link" in page
