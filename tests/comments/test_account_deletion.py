"""Deleting an account asks what becomes of the learner's comments and problem reports, says how many
there are, and does what was chosen: keep them (under "deleted account", reports without a name) or
delete them too (the comments' text and the reports); no choice is a clear error that deletes nothing."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.accounts.models import User
from app.core.services import app_services
from app.reports.models import ProblemReport

from .conftest import CSRF_FIELD, LESSON, PASSWORD


def _report(browser, text: str) -> None:
    token = CSRF_FIELD.search(browser.client.get(f"/en/lessons/{LESSON}/report").text).group(1)
    sent = browser.client.post(f"/en/lessons/{LESSON}/report", data={"csrf_token": token, "what": text, "quote": "",
                                                                      "website": ""})
    assert sent.status_code == 200, sent.text


def _reports(app) -> list[tuple[str, int | None]]:
    with app_services(app).session_factory() as db:
        return [(r.what, r.reporter_id) for r in db.scalars(select(ProblemReport))]


@pytest.mark.parametrize(("choice", "comment_stays", "report_stays"), [("keep", True, True), ("delete", False, False)])
def test_the_learner_chooses_what_becomes_of_their_comments_and_reports(app, kim, lee, choice, comment_stays,
                                                                         report_stays):
    root = kim.comment("kim's question about tiles")
    lee.comment("lee answers", parent_id=root)
    _report(kim, "kim found a typo")
    for lang, words in (("en", "comments: 1; problem reports: 1"), ("ko", "댓글: 1개, 문제 신고: 1개")):
        page = kim.client.get(f"/{lang}/profile/delete").text
        assert words in page and 'name="contributions" value="keep"' in page and 'value="delete"' in page
    token = CSRF_FIELD.search(kim.client.get("/en/profile/delete").text).group(1)

    unchosen = kim.client.post("/ko/profile/delete", data={"csrf_token": token, "password": PASSWORD})
    assert unchosen.status_code == 400 and "댓글과 문제 신고도 함께 지울지" in unchosen.text
    with app_services(app).session_factory() as db:
        assert db.scalar(select(func.count()).select_from(User).where(User.username == "kim")) == 1

    done = kim.client.post("/en/profile/delete", data={"csrf_token": token, "password": PASSWORD,
                                                       "contributions": choice}, follow_redirects=False)
    assert done.status_code == 303
    texts = {c["html"] for c in lee.listing()["comments"]}
    assert any("lee answers" in t for t in texts)  # a reply by someone else always stays
    assert any("kim&#39;s question" in t or "kim's question" in t for t in texts) is comment_stays
    assert [what for what, _ in _reports(app)] == (["kim found a typo"] if report_stays else [])
    assert all(reporter is None for _, reporter in _reports(app))
