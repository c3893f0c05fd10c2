"""Instructors hide and unhide comments, lock and unlock threads; reports of comments reach them;
"helpful" marks."""
from __future__ import annotations

from sqlalchemy import select

from app.comments.limits import CommentsConfig
from app.core.services import app_services
from tests.comments.conftest import LESSON


def test_hidden_comments_stay_hidden_from_learners(kim, lee, teacher, visitor):
    secret = kim.comment("rude words here")
    assert lee.send("POST", f"/api/comments/{secret}/hide").status_code == 403  # learners cannot
    assert teacher.send("POST", f"/api/comments/{secret}/hide").status_code == 200
    for reader in (visitor, lee, kim):
        data = reader.listing()
        assert data["count"] == 0 and data["comments"] == []
        assert "rude words" not in data["html"]
        assert reader.client.get(f"/api/comments/{secret}").status_code == 404
        assert "rude words" not in reader.client.get(f"/en/lessons/{LESSON}/comments").text
    # replies to a hidden comment are refused for learners (it no longer exists for them)
    assert lee.post_comment("answering it", parent_id=secret).status_code == 404
    seen = teacher.listing()
    assert seen["comments"][0]["state"] == "hidden" and "rude words" in seen["html"]
    assert "Hidden from learners" in seen["html"]
    assert teacher.send("POST", f"/api/comments/{secret}/unhide").status_code == 200
    assert "rude words" in visitor.listing()["html"]


def test_restore_is_still_an_alias_of_unhide(kim, lee, teacher, visitor):
    secret = kim.comment("words to hide")
    assert teacher.send("POST", f"/api/comments/{secret}/hide").status_code == 200
    assert lee.send("POST", f"/api/comments/{secret}/restore").status_code == 403  # learners cannot
    answer = teacher.send("POST", f"/api/comments/{secret}/restore")
    assert answer.status_code == 200 and answer.json() == {"id": secret, "hidden": False}
    assert "words to hide" in visitor.listing()["html"]


def test_hidden_parent_becomes_a_placeholder_above_visible_replies(kim, lee, teacher, visitor):
    root = kim.comment("the hidden text")
    lee.comment("a fine reply", parent_id=root)
    teacher.send("POST", f"/api/comments/{root}/hide")
    data = visitor.listing()
    assert [c["state"] for c in data["comments"]] == ["hidden", "visible"]
    assert data["comments"][0]["author"] is None and data["comments"][0]["html"] == ""
    assert "the hidden text" not in data["html"] and "kim" not in data["html"]
    assert "This comment was hidden by a moderator." in data["html"]
    assert 'class="comment comment--d0 comment--gone"' in data["html"]  # a placeholder, not the dashed moderator view
    assert "운영자가 숨긴 댓글이에요." in visitor.listing(lang="ko")["html"]
    seen = teacher.listing(lang="ko")
    assert [c["state"] for c in seen["comments"]] == ["hidden", "visible"] and "the hidden text" in seen["html"]
    assert "comment--hidden" in seen["html"] and "숨김 해제" in seen["html"]  # the moderator's button to undo it


def test_locked_thread_refuses_comments_and_replies(kim, lee, teacher, visitor):
    root = kim.comment("before the lock")
    assert lee.send("POST", f"/api/lessons/{LESSON}/comments/lock").status_code == 403
    assert teacher.send("POST", f"/api/lessons/{LESSON}/comments/lock").status_code == 200
    assert visitor.listing()["locked"] is True
    for response in (lee.post_comment("new", lang="en"), lee.post_comment("reply", parent_id=root, lang="en")):
        assert response.status_code == 409 and response.json()["error"] == "locked"
        assert response.json()["message"] == "This thread is locked: no new comments or replies."
    assert lee.post_comment("새 댓글", lang="ko").json()["message"] == "이 스레드는 잠겨 있어요. 새 댓글이나 답글을 달 수 없어요."
    assert kim.send("PATCH", f"/api/comments/{root}", {"body": "changed"}).status_code == 409
    html = kim.listing()["html"]
    assert "This thread is locked" in html and 'data-action="reply"' not in html
    assert teacher.send("POST", f"/api/lessons/{LESSON}/comments/unlock").status_code == 200
    assert lee.post_comment("after the unlock").status_code == 201


def test_reports_reach_the_instructors_inbox(app, kim, lee, teacher, visitor):
    bad = kim.comment("buy cheap watches")
    assert visitor.send("POST", f"/api/comments/{bad}/report", {"reason": "spam"}).status_code in (401, 403)
    empty = lee.send("POST", f"/api/comments/{bad}/report", {"reason": "   "})
    assert empty.status_code == 400 and empty.json()["error"] == "report_reason"
    assert lee.send("POST", f"/api/comments/{bad}/report", {"reason": "spam"}).status_code == 201
    again = lee.send("POST", f"/api/comments/{bad}/report", {"reason": "spam again"})
    assert again.status_code == 409 and again.json()["error"] == "report_done"
    assert lee.client.get("/en/reports").status_code == 403  # learners have no inbox
    assert lee.client.get("/api/notifications/summary").json()["inbox"] is None
    assert teacher.client.get("/api/notifications/summary").json()["inbox"] == 1
    inbox = teacher.client.get("/en/reports").text
    assert "buy cheap watches" in inbox and "spam" in inbox and f"#comment-{bad}" in inbox
    token = teacher.csrf
    hide = teacher.client.post(f"/en/reports/comments/{bad}/hide", data={"csrf_token": token}, follow_redirects=False)
    assert hide.status_code == 303
    assert visitor.listing()["count"] == 0
    assert teacher.client.get("/api/notifications/summary").json()["inbox"] == 0
    assert "buy cheap watches" in teacher.client.get("/en/reports?status=resolved").text


def test_helpful_mark_by_the_parent_author_once_and_event_recorded(app, kim, lee, browser_factory):
    from app.accounts.users import find_user
    from app.progress.models import Event, UserAchievement

    park = browser_factory().signup("park")
    question = kim.comment("why is my kernel slow?")
    answer = lee.comment("coalesce your loads", parent_id=question)
    own_reply = kim.comment("I answer myself", parent_id=question)
    assert park.send("POST", f"/api/comments/{answer}/helpful").json()["error"] == "helpful_not_parent"
    assert lee.send("POST", f"/api/comments/{answer}/helpful").status_code == 403
    assert kim.send("POST", f"/api/comments/{own_reply}/helpful").json()["error"] == "helpful_own"
    assert kim.send("POST", f"/api/comments/{question}/helpful").status_code == 403  # not a reply
    assert kim.send("POST", f"/api/comments/{answer}/helpful").status_code == 200
    twice = kim.send("POST", f"/api/comments/{answer}/helpful")
    assert twice.status_code == 409 and twice.json()["error"] == "helpful_done"
    data = kim.listing()
    assert [c["helpful"] for c in data["comments"]] == [False, True, False]
    assert "Helpful" in data["html"]
    with app_services(app).session_factory() as db:
        lee_user, kim_user = find_user(db, "lee"), find_user(db, "kim")
        events = list(db.scalars(select(Event).where(Event.kind == "reply_marked_helpful")))
        assert [(e.user_id, e.subject) for e in events] == [(lee_user.id, str(answer))]
        earned = set(db.scalars(select(UserAchievement.achievement_id).where(UserAchievement.user_id == lee_user.id)))
        assert {"helpful_reply", "first_comment"} <= earned
        posted = db.scalars(select(Event.subject).where(Event.kind == "comment_posted", Event.user_id == kim_user.id))
        assert set(posted) == {str(question), str(own_reply)}


def test_comment_reports_are_rate_limited_per_user(app, kim, lee):
    app_services(app).get(CommentsConfig).comment_rates = [(100, 60)]
    app_services(app).get(CommentsConfig).comment_reports_per_hour = 2
    ids = [kim.comment(f"c{i}") for i in range(3)]
    for comment_id in ids[:2]:
        assert lee.send("POST", f"/api/comments/{comment_id}/report", {"reason": "off topic"}).status_code == 201
    limited = lee.send("POST", f"/api/comments/{ids[2]}/report?lang=ko", {"reason": "off topic", "lang": "ko"})
    assert limited.status_code == 429 and "신고가 너무 많아요" in limited.json()["message"]


def test_learners_cannot_use_the_inbox_actions(kim, lee, teacher):
    bad = kim.comment("x")
    lee.send("POST", f"/api/comments/{bad}/report", {"reason": "spam"})
    for url in (f"/en/reports/comments/{bad}/hide", f"/en/reports/comments/{bad}/dismiss", "/en/reports/1/resolve"):
        assert lee.client.post(url, data={"csrf_token": lee.csrf}, follow_redirects=False).status_code == 403
        assert teacher.client.post(url, data={}, follow_redirects=False).status_code == 403  # no CSRF token
    assert lee.listing()["count"] == 1
    assert teacher.client.get("/api/notifications/summary").json()["inbox"] == 1
