"""Graders' dashboard and API on a real app: filters, flagged first, override with an audit entry
and XP compensation through the ledger, notes shown to the learner, re-run, CSV/JSON exports,
personal tokens, permission denials and CSRF."""
import csv
import datetime as dt
import io
import re
import time

from app.core.services import app_services
from tests.panel.support import add_user, cookie_login, insert_graded, passed_result, total_xp, wrong_result


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def setup(app_client):
    client = app_client(dispatcher_enabled=False)
    tokens = {name: add_user(client.app, name, role) for name, role in
              (("alice", "learner"), ("bob", "learner"), ("gina", "grader"), ("ada", "admin"))}
    old = dt.datetime(2026, 1, 10, 12, 0)
    ids = {
        "alice_pass": insert_graded(client.app, "alice", passed_result(), created=old),
        "alice_wrong": insert_graded(client.app, "alice", wrong_result()),
        "bob_fast": insert_graded(client.app, "bob", passed_result(fast=True), created=old),
        "bob_transpose": insert_graded(client.app, "bob", wrong_result("transpose")),
    }
    return client, tokens, ids


def listed(client, token, **params):
    r = client.get("/api/graders/submissions", params=params, headers=bearer(token))
    assert r.status_code == 200, r.text
    return [s["id"] for s in r.json()["submissions"]]


def test_filters_and_flagged_first(app_client):
    client, tokens, ids = setup(app_client)
    g = tokens["gina"]
    everything = listed(client, g)
    assert everything[0] == ids["bob_fast"]  # flagged first, although it is the oldest
    assert set(everything) == set(ids.values())
    assert set(listed(client, g, exercise="transpose")) == {ids["bob_transpose"]}
    assert set(listed(client, g, learner="ALI")) == {ids["alice_pass"], ids["alice_wrong"]}
    assert set(listed(client, g, verdict="wrong_answer")) == {ids["alice_wrong"], ids["bob_transpose"]}
    assert set(listed(client, g, **{"from": "2026-01-10", "to": "2026-01-10"})) == {ids["alice_pass"], ids["bob_fast"]}
    assert set(listed(client, g, exercise="gemm", learner="bob", verdict="PASSED")) == {ids["bob_fast"]}
    page = client.get("/en/graders", params={"learner": "bob"}, headers=bearer(g)).text
    assert f'data-row="{ids["bob_fast"]}" class="is-flagged"' in page and f'data-row="{ids["alice_pass"]}"' not in page
    assert page.index(f'data-row="{ids["bob_fast"]}"') < page.index(f'data-row="{ids["bob_transpose"]}"')


def test_override_keeps_audit_trail_and_moves_xp_through_the_ledger(app_client):
    client, tokens, ids = setup(app_client)
    g, sub = tokens["gina"], ids["alice_pass"]
    assert total_xp(client.app, "alice") == 70  # pass 40 + beat_naive 10 + beat_tiled 20
    r = client.post(f"/api/graders/submissions/{sub}/override", headers=bearer(g),
                    json={"verdict": "WRONG_ANSWER", "reason": "hard-codes the 1024 case"})
    assert r.status_code == 201, r.text
    assert r.json()["review"]["xp_delta"] == -70 and r.json()["review"]["verdict_before"] == "PASSED"
    assert total_xp(client.app, "alice") == 0
    # the learner sees the new verdict and the reason, in their language
    frag = client.get(f"/ko/panel/submissions/{sub}", headers=bearer(tokens["alice"])).text
    assert "hard-codes the 1024 case" in frag and "채점자가 판정을" in frag
    assert 'data-verdict="WRONG_ANSWER"' in frag and "자동 검사 결과는 “통과”" in frag
    history = client.get("/en/panel/exercises/gemm/history", headers=bearer(tokens["alice"])).text
    row = re.search(rf'data-history-row="{sub}">.*?</tr>', history, re.S).group(0)
    assert "Wrong answer" in row and "changed by a grader" in row
    # back to PASSED restores what the engine paid; nothing is paid twice
    r = client.post(f"/api/graders/submissions/{sub}/override", headers=bearer(g),
                    json={"verdict": "PASSED", "reason": "the fixed-size path is fine after all"})
    assert r.json()["review"]["xp_delta"] == 70 and total_xp(client.app, "alice") == 70
    # a wrong answer turned PASSED earns nothing more: this exercise's pass is already paid
    r = client.post(f"/api/graders/submissions/{ids['alice_wrong']}/override", headers=bearer(g),
                    json={"verdict": "PASSED", "reason": "tolerance too strict"})
    assert r.json()["review"]["xp_delta"] == 0 and total_xp(client.app, "alice") == 70
    # bob's transpose wrong answer turned PASSED earns the transpose pass XP
    before = total_xp(client.app, "bob")
    r = client.post(f"/api/graders/submissions/{ids['bob_transpose']}/override", headers=bearer(g),
                    json={"verdict": "PASSED", "reason": "reference bug"})
    from kernels.engine import load_exercise
    assert r.json()["review"]["xp_delta"] == load_exercise("transpose").pass_xp > 0
    assert total_xp(client.app, "bob") == before + load_exercise("transpose").pass_xp
    # the ledger holds compensating rows, never edits
    from sqlalchemy import select

    # (alice's take-back and restore are compensating entries; bob's pass is paid as the same
    # 'exercise_pass' deed a grading pays, once: the override flows through the event log)
    from app.accounts.models import User
    from app.progress.models import XpEntry
    with app_services(client.app).session_factory() as db:
        rows = list(db.scalars(select(XpEntry).where(XpEntry.source == "adjustment").order_by(XpEntry.id)))
        bob_id = db.scalar(select(User.id).where(User.username == "bob"))
        bob_pass = list(db.scalars(select(XpEntry).where(XpEntry.user_id == bob_id, XpEntry.source == "exercise_pass",
                                                         XpEntry.source_id == "transpose")))
    assert [r.amount for r in rows] == [-70, 70]
    assert rows[0].source_id.startswith(f"submission:{sub}:override:")
    assert [r.amount for r in bob_pass] == [load_exercise("transpose").pass_xp]
    trail = client.get(f"/en/graders/submissions/{sub}", headers=bearer(g)).text
    assert trail.count('data-audit-row="override"') == 2 and "hard-codes the 1024 case" in trail and "-70" in trail


def test_override_and_note_need_a_reason_and_a_known_verdict(app_client):
    client, tokens, ids = setup(app_client)
    g, sub = tokens["gina"], ids["alice_pass"]
    r = client.post(f"/api/graders/submissions/{sub}/override?lang=ko", headers=bearer(g), json={"verdict": "PASSED", "reason": "  "})
    assert r.status_code == 422 and r.json()["error"] == "reason_required" and "사유" in r.json()["message"]
    r = client.post(f"/api/graders/submissions/{sub}/override", headers=bearer(g), json={"verdict": "GREAT", "reason": "x"})
    assert r.status_code == 422 and r.json()["error"] == "bad_verdict"
    assert client.post(f"/api/graders/submissions/{sub}/note", headers=bearer(g), json={}).status_code == 422
    assert client.post("/api/graders/submissions/99999/note", headers=bearer(g), json={"reason": "x"}).status_code == 404
    r = client.post(f"/api/graders/submissions/{sub}/note", headers=bearer(g), json={"reason": "nice tiling"})
    assert r.status_code == 201
    assert "nice tiling" in client.get(f"/en/panel/submissions/{sub}", headers=bearer(tokens["alice"])).text
    assert total_xp(client.app, "alice") == 70


def test_days_out_of_range_are_refused_in_the_readers_language(app_client):
    """The date filters take days from 1970-01-01 to 2999-12-31; a blank one means no filter."""
    client, tokens, ids = setup(app_client)
    g = bearer(tokens["gina"])
    for query in ("to=9999-12-31", "from=9999-12-31", "to=3000-01-01", "from=1969-12-31", "to=2026-02-30", "from=soon"):
        for url in ("/api/graders/submissions", "/api/graders/submissions.csv"):
            r = client.get(f"{url}?{query}", headers={**g, "Accept-Language": "en"})
            assert r.status_code == 422, (url, query)
            assert r.json()["message"].startswith("Some fields are missing or have the wrong type"), (url, query)
        ko = client.get(f"/ko/graders?{query}", headers=g)
        assert ko.status_code == 422 and "형식이 맞지 않는 항목이 있어요" in ko.text, query
        en = client.get(f"/en/graders?{query}", headers=g)
        assert en.status_code == 422 and "Some fields are missing or have the wrong type" in en.text, query
    everything = listed(client, tokens["gina"])
    assert listed(client, tokens["gina"], to="2999-12-31", **{"from": "1970-01-01"}) == everything
    assert client.get("/en/graders?from=&to=&exercise=", headers=g).status_code == 200  # the form's blank fields
    assert listed(client, tokens["gina"], to="2026-01-10") == [ids["bob_fast"], ids["alice_pass"]]


def test_exports_csv_parses_and_matches_json(app_client):
    client, tokens, ids = setup(app_client)
    g = tokens["gina"]
    client.post(f"/api/graders/submissions/{ids['alice_pass']}/note", headers=bearer(g), json={"reason": "ok"})
    data = client.get("/api/graders/submissions", headers=bearer(g)).json()
    csv_response = client.get("/api/graders/submissions.csv", headers=bearer(g))
    assert csv_response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(csv_response.text)))
    assert [int(r["id"]) for r in rows] == [s["id"] for s in data["submissions"]]
    for row, record in zip(rows, data["submissions"], strict=True):
        assert row["learner"] == record["learner"] and row["effective_verdict"] == record["effective_verdict"]
        assert row["flagged"] == str(record["flagged"]) and int(row["reviews"]) == len(record["reviews"])
        if record["speedup_naive"] is not None:
            assert float(row["speedup_naive"]) == round(record["speedup_naive"], 2)
            assert re.fullmatch(r"\d+\.\d\d", row["speedup_naive"]), row["speedup_naive"]
    fast = next(s for s in data["submissions"] if s["id"] == ids["bob_fast"])
    assert fast["flags"] == ["IMPLAUSIBLY_FAST"] and fast["result"]["verdict"] == "PASSED" and "source" in fast
    filtered = list(csv.DictReader(io.StringIO(client.get("/api/graders/submissions.csv", params={"learner": "alice"},
                                                          headers=bearer(g)).text)))
    assert {r["learner"] for r in filtered} == {"alice"}


def test_csv_numbers_have_the_shown_precision():
    from app.graders.listing import to_csv

    row = next(csv.DictReader(io.StringIO(to_csv([{"id": 1, "learner": "a", "flags": [], "reviews": [],
                                                    "speedup_tiled": 3.3480000000000003, "xp": 70}]))))
    assert row["speedup_tiled"] == "3.35" and row["xp"] == "70" and row["speedup_naive"] == ""


def test_csv_export_defuses_formulas(app_client):
    from app.graders.listing import to_csv

    text = to_csv([{"id": 1, "learner": "=cmd()", "flags": [], "reviews": []}])
    assert "'=cmd()" in text


def test_learners_get_403_and_visitors_401(app_client):
    client, tokens, ids = setup(app_client)
    a = bearer(tokens["alice"])
    for url in ("/api/graders/submissions", "/api/graders/submissions.csv", "/en/graders",
                f"/en/graders/submissions/{ids['alice_pass']}"):
        assert client.get(url, headers=a).status_code == 403, url
        assert client.get(url).status_code == 401, url
    for kind in ("note", "override", "rerun"):
        r = client.post(f"/api/graders/submissions/{ids['alice_pass']}/{kind}", headers=a,
                        json={"verdict": "PASSED", "reason": "mine"})
        assert r.status_code == 403
    assert total_xp(client.app, "alice") == 70
    # admins may review too; the nav shows the dashboard link to graders only
    assert client.get("/api/graders/submissions", headers=bearer(tokens["ada"])).status_code == 200
    learner_browser, _ = cookie_login(client.app, "alice")
    assert "data-graders-link" not in learner_browser.get("/en/").text
    grader_browser, _ = cookie_login(client.app, "gina")
    assert "data-graders-link" in grader_browser.get("/en/").text


def test_instructors_are_not_graders(app_client):
    """Instructors write lessons and moderate comments; reviewing submissions is the graders' (and
    admins') job, so every graders' page and API answers an instructor 403 and changes nothing."""
    client, tokens, ids = setup(app_client)
    teacher = bearer(add_user(client.app, "ines", "instructor"))
    for url in ("/api/graders/submissions", "/api/graders/submissions.csv", "/api/graders/stuck.csv", "/en/graders",
                f"/en/graders/submissions/{ids['alice_pass']}"):
        assert client.get(url, headers=teacher).status_code == 403, url
    for kind in ("note", "override", "rerun"):
        r = client.post(f"/api/graders/submissions/{ids['alice_wrong']}/{kind}", headers=teacher,
                        json={"verdict": "PASSED", "reason": "an instructor's opinion"})
        assert r.status_code == 403 and r.json()["error"] == "forbidden", (kind, r.text)
    assert total_xp(client.app, "alice") == 70
    trail = client.get("/api/graders/submissions?learner=alice", headers=bearer(tokens["gina"])).json()
    assert all(s["reviews"] == [] for s in trail["submissions"])


def test_cookie_forms_need_the_csrf_token(app_client):
    client, tokens, ids = setup(app_client)
    browser, csrf = cookie_login(client.app, "gina")
    sub = ids["alice_wrong"]
    url = f"/en/graders/submissions/{sub}/note"
    assert browser.post(url, data={"reason": "forged"}, follow_redirects=False).status_code == 403
    assert browser.post(url, data={"reason": "forged", "csrf_token": "wrong"}, follow_redirects=False).status_code == 403
    assert browser.post(f"/api/graders/submissions/{sub}/note", json={"reason": "forged"}).status_code == 403
    ok = browser.post(url, data={"reason": "real note", "csrf_token": csrf}, follow_redirects=False)
    assert ok.status_code == 303 and ok.headers["location"] == f"/en/graders/submissions/{sub}?done=note"
    page = browser.get(ok.headers["location"]).text
    assert "Note saved." in page and "real note" in page and "forged" not in page
    # a form without a reason re-renders with the error, nothing stored
    r = browser.post(f"/ko/graders/submissions/{sub}/override", data={"reason": "", "verdict": "PASSED", "csrf_token": csrf})
    assert r.status_code == 422 and "data-form-error" in r.text
    assert browser.post(f"/api/graders/submissions/{sub}/note", json={"reason": "api with header"},
                        headers={"X-CSRF-Token": csrf}).status_code == 201


def test_rerun_requeues_and_keeps_the_old_result(app_client):
    client = app_client()  # dispatcher on, no GPU: a re-run compiles again and waits for a GPU
    alice = add_user(client.app, "alice")
    g = add_user(client.app, "gina", "grader")
    from tests.submissions.conftest import gemm_source
    r = client.post("/api/exercises/gemm/submissions", json={"source": gemm_source("rerun")}, headers=bearer(alice))
    sub = r.json()["id"]

    def wait():
        deadline = time.monotonic() + 90
        while True:
            view = client.get(f"/api/submissions/{sub}", headers=bearer(alice)).json()
            if view["state"] in ("done", "awaiting_gpu"):
                return view
            assert time.monotonic() < deadline
            time.sleep(0.05)

    first = wait()
    assert first["state"] == "awaiting_gpu"
    from sqlalchemy import select, update

    from app.submissions.models import Submission, SubmissionReview
    with app_services(client.app).session_factory() as db:  # as if its first compile had run past the slice
        db.execute(update(Submission).where(Submission.id == sub).values(long_compile_ms=2600))
        db.commit()
    r = client.post(f"/api/graders/submissions/{sub}/rerun", headers=bearer(g), json={"reason": "new GPU driver"})
    assert r.status_code == 201, r.text
    again = wait()
    assert again["state"] == "awaiting_gpu" and again["attempts"] == 1
    with app_services(client.app).session_factory() as db:
        entry = db.scalar(select(SubmissionReview).where(SubmissionReview.submission_id == sub))
        # the re-run compiled again from a first slice; the old slice no longer counts in the compile budget
        assert db.get(Submission, sub).long_compile_ms is None
    assert entry.kind == "rerun" and '"UNAVAILABLE_NO_GPU"' in entry.result_before and entry.reason == "new GPU driver"


def test_a_waiting_submission_is_not_rerun(app_client):
    # setup's app has no grader: with one, the queued row would be compiled and finished again before
    # the re-run was asked for (under load), and a finished row may be re-run
    client, tokens, ids = setup(app_client)
    from app.submissions.models import Submission
    with app_services(client.app).session_factory() as db:
        db.get(Submission, ids["alice_wrong"]).state = "queued"
        db.commit()
    r = client.post(f"/api/graders/submissions/{ids['alice_wrong']}/rerun?lang=ko", headers=bearer(tokens["gina"]),
                    json={"reason": "again"})
    assert r.status_code == 409, r.text
    assert r.json() == {"error": "already_queued", "message": "이 제출은 이미 대기 중이거나 채점 중이에요.", "params": {}}
