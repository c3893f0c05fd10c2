"""Who is stuck (graders' dashboard): per exercise, learners with >= N failed attempts
and no pass, the last hour's most common verdict and message code, the median time to a pass;
page in both languages and CSV, through the real app."""
from __future__ import annotations

import csv
import datetime as dt
import io
import re
from html import unescape

from sqlalchemy import select

from app.core.services import app_services
from tests.panel.support import add_user, insert_graded, passed_result, wrong_result


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def setup_class(client):
    app = client.app
    grader = add_user(app, "grace", role="grader")
    learner = add_user(app, "learner")
    now = dt.datetime.utcnow()
    ago = lambda minutes: now - dt.timedelta(minutes=minutes)  # noqa: E731
    for name in ("alice", "bob", "carol", "eve", "dora"):
        add_user(app, name)
    # alice: 3 wrong answers, no pass -> stuck (two of them in the last hour)
    for m in (200, 50, 10):
        insert_graded(app, "alice", wrong_result(), created=ago(m))
    # bob: 2 failures then a pass after 30 minutes -> not stuck; time to pass 30 min
    insert_graded(app, "bob", wrong_result(), created=ago(100))
    insert_graded(app, "bob", wrong_result(), created=ago(90))
    insert_graded(app, "bob", passed_result(), created=ago(70))
    # carol: 3 failures, the last overridden to PASSED by a grader -> not stuck; time to pass 20 min
    ids = [insert_graded(app, "carol", wrong_result(), created=ago(m)) for m in (40, 30, 20)]
    from app.accounts.models import User
    from app.graders import reviews

    with app_services(app).session_factory() as db:
        g = db.scalar(select(User).where(User.username == "grace"))
        reviews.override(db, g, ids[-1], "PASSED", "the checker was too strict here")
        db.commit()
    # eve: 4 failures on transpose -> stuck there
    for m in (5, 4, 3, 2):
        insert_graded(app, "eve", wrong_result("transpose"), created=ago(m))
    # dora: 2 failures only -> below the default 3
    insert_graded(app, "dora", wrong_result(), created=ago(15))
    insert_graded(app, "dora", wrong_result(), created=ago(14))
    return grader, learner


def test_stuck_page_and_csv(app_client):
    client = app_client(dispatcher_enabled=False)
    grader, learner = setup_class(client)
    html = unescape(client.get("/en/graders/stuck", headers=bearer(grader)).text)
    gemm = html[html.index('data-stuck-exercise="gemm"'):html.index('data-stuck-exercise="transpose"')]
    assert 'data-stuck-learner="alice"' in gemm
    for name in ("bob", "carol", "dora"):
        assert f'data-stuck-learner="{name}"' not in gemm
    assert '<a href="/en/graders?learner=alice&exercise=gemm">alice</a>' in gemm
    assert re.search(r"<td[^>]*>3</td>", gemm)
    # last hour on gemm: alice 2 wrong, carol 2 wrong + 1 overridden pass, dora 2 wrong -> WRONG_ANSWER 6
    assert "Wrong answer (6)" in gemm and 'data-code="WRONG_ANSWER"' in gemm  # the label, the code beside it
    # median of bob's 30 min and carol's 20 min
    assert "25m (2 learners passed)" in gemm
    transpose = html[html.index('data-stuck-exercise="transpose"'):]
    assert 'data-stuck-learner="eve"' in transpose
    # a lower threshold brings dora in
    html2 = client.get("/en/graders/stuck?min=2", headers=bearer(grader)).text
    assert 'data-stuck-learner="dora"' in html2
    assert client.get("/en/graders/stuck?min=zzz", headers=bearer(grader)).status_code == 200

    body = client.get("/api/graders/stuck.csv?min=3", headers=bearer(grader))
    assert body.status_code == 200 and body.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body.text)))
    stuck = {(r["exercise"], r["learner"]): r for r in rows if r["learner"]}
    assert set(stuck) == {("gemm", "alice"), ("transpose", "eve")}
    alice = stuck[("gemm", "alice")]
    assert alice["failed_attempts"] == "3" and alice["last_verdict"] == "WRONG_ANSWER"
    assert alice["history"].endswith("/graders?learner=alice&exercise=gemm")
    assert alice["median_minutes_to_pass"] == "25.0" and alice["common_code_last_hour"] == "WRONG_ANSWER"


def test_stuck_page_korean_and_permissions(app_client):
    client = app_client(dispatcher_enabled=False)
    grader, learner = setup_class(client)
    html = unescape(client.get("/ko/graders/stuck", headers=bearer(grader)).text)
    assert "막힌 학습자" in html and "지난 한 시간" in html
    assert client.get("/ko/graders/stuck", headers=bearer(learner)).status_code == 403
    assert client.get("/api/graders/stuck.csv", headers=bearer(learner)).status_code == 403
    assert client.get("/en/graders/stuck").status_code in (401, 303, 307)
    dash = client.get("/en/graders", headers=bearer(grader)).text
    assert 'href="/en/graders/stuck" data-stuck-link' in dash
