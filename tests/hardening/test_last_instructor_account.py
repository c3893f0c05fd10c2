"""A class keeps an instructor when its last instructor deletes their account, too. Before, the account
went and its class was left with learners, assignments and a gradebook that no one but an administrator
could run. Now the deletion is refused, naming the class, in the reader's language, and nothing is
deleted (not even the comments the form asked to erase); once another instructor is there, it goes."""
from __future__ import annotations

import pytest

from app.accounts.users import find_user
from app.core.services import app_services
from tests.accounts.conftest import PASSWORD, form_token, page_csrf, set_role, settings, signup  # noqa: F401


def _delete(client, lang: str):
    return client.post(f"/{lang}/profile/delete", data={"csrf_token": form_token(client, f"/{lang}/profile/delete"),
                                                        "password": PASSWORD, "contributions": "delete"},
                       follow_redirects=False)


@pytest.mark.parametrize("lang, refusal", [
    ("en", "You are the only instructor of “GPU 101”. Add another instructor there before deleting your account."),
    ("ko", "“GPU 101” 반의 강사는 나뿐이에요. 계정을 삭제하기 전에 그 반에 다른 강사를 추가해 주세요.")])
def test_the_last_instructor_of_a_class_cannot_delete_the_account(new_client, app, lang, refusal):
    teacher = new_client()
    assert signup(teacher, "kim").status_code == 303
    set_role(app, "kim", "instructor")
    teacher.headers["X-CSRF-Token"] = page_csrf(teacher)
    class_id = teacher.post("/api/classes", json={"name": "GPU 101"}).json()["id"]
    said = teacher.post("/api/lessons/naive-vs-tiled-gemm/comments", json={"body": "hello", "lang": "en"})
    assert said.status_code == 201

    refused = _delete(teacher, lang)
    assert refused.status_code == 409 and refusal in refused.text
    with app_services(app).session_factory() as db:
        assert find_user(db, "kim") is not None
    assert teacher.get(f"/api/classes/{class_id}").json()["role"] == "instructor"
    assert teacher.get(f"/api/comments/{said.json()['id']}").status_code == 200  # not erased either

    colleague = new_client()
    assert signup(colleague, "lee").status_code == 303
    set_role(app, "lee", "instructor")
    added = teacher.post(f"/api/classes/{class_id}/members", json={"username": "lee", "role": "instructor"})
    assert added.status_code == 201
    assert _delete(teacher, lang).status_code == 303
    with app_services(app).session_factory() as db:
        assert find_user(db, "kim") is None
    colleague.headers["X-CSRF-Token"] = page_csrf(colleague)
    members = colleague.get(f"/api/classes/{class_id}/members").json()["members"]
    assert [(m["username"], m["role"]) for m in members] == [("lee", "instructor")]
