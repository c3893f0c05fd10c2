"""Smaller things a newcomer met: a heading's "#" link is out of the tab order and not read aloud;
"sign out everywhere" and a role change say they happened; locked achievements do not read as done
in Korean; the compile message has no "error(s)" and a missing ";" points at the line before too."""
from __future__ import annotations

from app.core.services import app_services
from app.panel.present import parse_compile_log, present
from tests.accounts.conftest import CSRF_FIELD, page_csrf, signup


def test_heading_links_are_not_tab_stops_nor_read_aloud(client):
    page = client.get("/en/lessons/naive-vs-tiled-gemm").text
    anchors = [a for a in page.split("<a ")[1:] if 'class="header-anchor"' in a.split(">")[0]]
    assert len(anchors) >= 8
    assert all('aria-hidden="true"' in a.split(">")[0] and 'tabindex="-1"' in a.split(">")[0] for a in anchors)


def test_sign_out_everywhere_and_a_role_change_are_confirmed(client, settings):
    from fastapi.testclient import TestClient

    assert signup(client, "ada").status_code == 303
    with app_services(client.app).session_factory() as db:
        from app.accounts.users import find_user

        find_user(db, "ada").role = "admin"
        db.commit()
    with TestClient(client.app) as other:
        assert signup(other, "kim").status_code == 303
    page = client.get("/ko/admin/users").text
    kim_id = page.split('data-user-row="kim"')[1].split('/admin/users/')[1].split('/role')[0]
    changed = client.post(f"/ko/admin/users/{kim_id}/role", data={"csrf_token": CSRF_FIELD.search(page).group(1),
                                                                  "role": "grader"}, follow_redirects=False)
    assert changed.status_code == 303  # back to the list: a reload sends nothing again
    shown = client.get(changed.headers["location"]).text
    assert "data-role-changed" in shown and "“채점자”" in shown
    done = client.post("/signout-everywhere", data={"csrf_token": page_csrf(client), "lang": "en"})
    assert done.status_code == 200 and "Signed out everywhere" in done.text
    assert str(done.url).endswith("/en/signed-out-everywhere")


def test_locked_achievements_do_not_read_as_done_in_korean(client):
    assert signup(client, "newbie").status_code == 303
    page = client.get("/ko/profile").text
    locked = page.split('data-achievement="first_lesson"')[1].split("</li>")[0]
    assert 'data-earned="no"' in locked and "첫 레슨을 완료하면 받아요." in locked and "완료했어요" not in locked


def test_compile_messages_without_plural_guesswork():
    log = ('kernel.cu(7): error: expected a ";"\n      C[row] = acc;\n      ^\n\n'
           "1 error detected in the compilation of \"kernel.cu\".\n")
    [error] = parse_compile_log(log)
    assert error.line == 7 and error.look_before
    view = {"id": 1, "state": "done", "result": {"verdict": "COMPILE_ERROR", "compile_log": log, "message": {
        "code": "COMPILE_FAILED", "params": {"errors": 1, "first_line": 7}}}}
    for lang, words in (("en", "(compiler errors: 1); the first is on line 7."), ("ko", "컴파일러 오류: 1개")):
        shown = present(view, lang)["message"]
        assert words in shown and "error(s)" not in shown
