"""Posting, threading, editing, deleting, permissions and limits, over real HTTP and SQLite."""
from __future__ import annotations

import re

from app.comments.limits import CommentsConfig
from app.core.services import app_services
from tests.comments.conftest import LESSON, OTHER_LESSON


def test_post_list_and_count_shared_by_both_languages(kim, lee, visitor):
    first = kim.comment("Hello **world** from English", lang="en")
    second = lee.comment("한국어 *댓글* 입니다", lang="ko")
    for lang in ("en", "ko"):
        data = visitor.listing(lang=lang)
        assert data["count"] == 2
        assert [c["id"] for c in data["comments"]] == [second, first]  # newest first by default
        assert {c["lang"] for c in data["comments"]} == {"en", "ko"}
    assert visitor.listing(lang="en")["count_text"] == "2 comments"
    assert visitor.listing(lang="ko")["count_text"] == "댓글 2개"
    html = visitor.listing(lang="ko")["html"]
    assert "<strong>world</strong>" in html and "<em>댓글</em>" in html
    assert 'lang="ko"' in html and "English" in html and "한국어" in html
    oldest = visitor.listing(sort="oldest")
    assert [c["id"] for c in oldest["comments"]] == [first, second]
    assert visitor.listing(slug=OTHER_LESSON)["count"] == 0  # threads are per lesson


def test_visitors_read_but_cannot_post(kim, visitor):
    kim.comment("visible to everyone")
    assert visitor.listing()["count"] == 1
    refused = visitor.post_comment("a visitor tries")
    assert refused.status_code == 401
    assert refused.json()["error"] == "auth_required"
    assert visitor.listing()["count"] == 1
    page = visitor.client.get(f"/en/lessons/{LESSON}")
    assert "Sign in to leave a comment." in page.text and "data-comment-form" not in page.text
    ko_page = visitor.client.get(f"/ko/lessons/{LESSON}")
    assert "로그인하면 댓글을 남길 수 있어요." in ko_page.text


def test_signed_in_lesson_page_has_composer_and_bell(kim):
    page = kim.client.get(f"/en/lessons/{LESSON}").text
    assert "data-comment-form" in page and "data-bell" in page and 'id="comments"' in page
    assert f'href="/en/lessons/{LESSON}/report"' in page


def test_csrf_is_required_for_every_change(kim, lee):
    mine = kim.comment("mine")
    reply = lee.comment("reply", parent_id=mine)
    attempts = [
        ("POST", f"/api/lessons/{LESSON}/comments", {"body": "no token", "lang": "en"}),
        ("PATCH", f"/api/comments/{mine}", {"body": "changed"}),
        ("DELETE", f"/api/comments/{mine}", None),
        ("POST", f"/api/comments/{reply}/helpful", None),
        ("POST", f"/api/comments/{reply}/report", {"reason": "spam"}),
        ("PUT", f"/api/lessons/{LESSON}/comments/follow", None),
        ("POST", "/api/notifications/read-all", None),
        ("PUT", "/api/notifications/settings", {"mode": "off"}),
    ]
    for method, url, body in attempts:
        response = kim.send(method, url, body, csrf=False)
        assert response.status_code == 403, (method, url, response.text)
        assert response.json()["error"] == "csrf"
        wrong = kim.send(method, url, body, csrf=False, headers={"X-CSRF-Token": "x" * 43})
        assert wrong.status_code == 403, (method, url)
    forged_origin = kim.send("POST", f"/api/lessons/{LESSON}/comments", {"body": "x", "lang": "en"},
                             headers={"Origin": "https://evil.example"})
    assert forged_origin.status_code == 403
    data = kim.listing()
    assert data["count"] == 2 and not any(c["helpful"] or c["edited"] for c in data["comments"])


def test_api_token_works_without_csrf(kim, visitor):
    from app.accounts import auth as authn
    from app.accounts.users import find_user

    app = kim.client.app
    with app_services(app).session_factory() as db:
        token, _ = authn.create_api_token(db, find_user(db, "kim"), "script")
        db.commit()
    headers = {"Authorization": f"Bearer {token}"}
    response = visitor.client.post(f"/api/lessons/{LESSON}/comments", json={"body": "from a script", "lang": "ko"},
                                   headers=headers)
    assert response.status_code == 201, response.text
    listed = visitor.listing()["comments"]
    assert listed[0]["author"] == "kim" and listed[0]["lang"] == "ko"
    bad = visitor.client.post(f"/api/lessons/{LESSON}/comments", json={"body": "x"},
                              headers={"Authorization": "Bearer mkc_wrong"})
    assert bad.status_code == 401


def test_nobody_edits_or_deletes_anothers_comment(kim, lee, teacher):
    mine = kim.comment("original text")
    for other in (lee, teacher):
        edit = other.send("PATCH", f"/api/comments/{mine}", {"body": "vandalised"})
        assert edit.status_code == 403 and edit.json()["error"] == "not_yours"
        delete = other.send("DELETE", f"/api/comments/{mine}")
        assert delete.status_code == 403
    # the source is only given to its author
    assert "body" not in lee.client.get(f"/api/comments/{mine}").json()
    assert kim.client.get(f"/api/comments/{mine}").json()["body"] == "original text"
    comment = lee.listing()["comments"][0]
    assert "original text" in comment["html"] and not comment["edited"]


def test_edit_marks_edited_and_delete_keeps_replies(kim, lee, visitor):
    root = kim.comment("first version")
    reply = lee.comment("an answer", parent_id=root)
    edited = kim.send("PATCH", f"/api/comments/{root}", {"body": "second *version*"})
    assert edited.status_code == 200 and edited.json()["edited"]
    data = visitor.listing()
    assert data["comments"][0]["edited"] and "<em>version</em>" in data["comments"][0]["html"]
    assert "(edited)" in data["html"]
    assert kim.send("DELETE", f"/api/comments/{root}").status_code == 200
    data = visitor.listing()
    assert data["count"] == 1
    assert [c["state"] for c in data["comments"]] == ["deleted", "visible"]
    assert "second" not in data["html"] and "This comment was deleted." in data["html"]
    assert data["comments"][1]["id"] == reply
    # a deleted comment with nothing below it disappears completely
    assert lee.send("DELETE", f"/api/comments/{reply}").status_code == 200
    data = visitor.listing()
    assert data["count"] == 0 and data["comments"] == []
    assert kim.send("PATCH", f"/api/comments/{root}", {"body": "back"}).status_code == 409


def test_replies_nest_to_depth_three_then_say_whom_they_answer(kim, lee, visitor):
    parent = kim.comment("depth 0")
    chain = [parent]
    for depth in range(1, 6):
        author = lee if depth % 2 else kim
        chain.append(author.comment(f"depth {depth}", parent_id=chain[-1]))
    comments = visitor.listing()["comments"]
    assert [c["id"] for c in comments] == chain
    assert [c["depth"] for c in comments] == [0, 1, 2, 3, 3, 3]
    assert [c["in_reply_to"] for c in comments] == [None, None, None, None, "lee", "kim"]
    html = visitor.listing()["html"]
    assert "in reply to kim" in html and "comment--d3" in html


def test_pagination_by_top_level_comment_and_focus(app, kim, lee, visitor):
    app_services(app).get(CommentsConfig).page_size = 3
    app_services(app).get(CommentsConfig).comment_rates = [(100, 60)]
    ids = [kim.comment(f"root {i}") for i in range(7)]
    reply = lee.comment("reply to the first", parent_id=ids[0])
    first = visitor.listing()
    assert first["pages"] == 3 and [c["id"] for c in first["comments"]] == ids[::-1][:3]
    last = visitor.listing(page=3)
    assert [c["id"] for c in last["comments"]] == [ids[0], reply]
    assert visitor.listing(page=99)["page"] == 3
    focused = visitor.listing(focus=reply)
    assert focused["page"] == 3
    assert "Page 1 of 3" in first["html"]


def test_empty_whitespace_and_too_long_are_refused_in_both_languages(app, kim):
    for body in ("", "   ", "\n\t \n", "\u200b\u200b", "\u3164"):
        response = kim.post_comment(body, lang="en")
        assert response.status_code == 400 and response.json()["error"] == "empty", repr(body)
        assert response.json()["message"].startswith("Write something first")
    for odd in ({"body": 5}, {"body": None}, {"body": ["a"]}, {"body": {"x": 1}}, {}):  # not text, or none
        response = kim.send("POST", f"/api/lessons/{LESSON}/comments", {**odd, "lang": "en"})
        assert response.status_code == 422 and response.json()["error"] == "invalid_request", odd
        assert response.json()["params"] == {"fields": ["body"]}, odd
    ko = kim.post_comment("  ", lang="ko").json()["message"]
    assert ko == "내용을 입력해 주세요. 빈 댓글이나 공백만 있는 댓글은 올릴 수 없어요."
    app_services(app).get(CommentsConfig).max_length = 50
    too_long = kim.post_comment("x" * 51, lang="en")
    assert too_long.status_code == 400
    assert too_long.json()["message"] == "A comment can have at most 50 characters (this one has 51)."
    assert "50" in kim.post_comment("가" * 51, lang="ko").json()["message"]
    assert kim.listing()["count"] == 0


def test_rate_limit_per_user(app, kim, lee):
    app_services(app).get(CommentsConfig).comment_rates = [(3, 60)]
    for i in range(3):
        kim.comment(f"comment {i}")
    refused = kim.post_comment("one too many", lang="ko")
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) > 0
    assert "초 후에 다시" in refused.json()["message"]
    assert lee.post_comment("someone else may").status_code == 201  # the limit is per user
    # deleting does not give the allowance back
    assert kim.send("DELETE", f"/api/comments/{kim.listing()['comments'][-1]['id']}").status_code == 200
    assert kim.post_comment("still too many").status_code == 429


def test_unknown_lesson_and_parent_from_another_lesson(kim):
    assert kim.post_comment("x", slug="no-such-lesson").status_code == 404
    elsewhere = kim.comment("on another lesson", slug=OTHER_LESSON)
    response = kim.post_comment("crossing threads", parent_id=elsewhere)
    assert response.status_code == 404


def test_comments_page_without_javascript(kim, visitor):
    kim.comment("readable *without* scripts")
    page = visitor.client.get(f"/ko/lessons/{LESSON}/comments")
    assert page.status_code == 200
    assert "<em>without</em>" in page.text and "댓글 1개" in page.text
    assert visitor.client.get("/xx/lessons/x/comments").status_code == 404
    lesson = visitor.client.get(f"/en/lessons/{LESSON}").text
    assert re.search(rf'href="/en/lessons/{LESSON}/comments"', lesson)


def test_deleted_account_leaves_its_comments_as_deleted_account(app, kim, lee, visitor):
    from app.accounts.users import delete_user, find_user

    root = kim.comment("kim was here")
    lee.comment("reply to kim", parent_id=root)
    with app_services(app).session_factory() as db:
        delete_user(db, find_user(db, "kim"))
        db.commit()
    data = visitor.listing()
    assert data["count"] == 2
    assert [c["author"] for c in data["comments"]] == [None, "lee"]
    assert "deleted account" in data["html"] and "kim was here" in data["html"]


def test_a_parent_id_past_what_json_keeps_exactly_is_refused_by_validation(app, kim):
    """Ids in JSON bodies stop at 2^53 - 1: a larger number may reach the server as a float."""
    for parent_id in (2**53, 2**63 - 1, 2**63):
        answer = kim.send("POST", f"/api/lessons/{LESSON}/comments", {"body": "hi", "lang": "en", "parent_id": parent_id})
        assert answer.status_code == 422 and answer.json()["params"] == {"fields": ["parent_id"]}, parent_id
    unknown = kim.send("POST", f"/api/lessons/{LESSON}/comments", {"body": "hi", "lang": "en", "parent_id": 2**53 - 1})
    assert unknown.status_code != 422 and unknown.status_code < 500
    assert kim.listing()["count"] == 0
