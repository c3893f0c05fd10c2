"""The bell: replies and followed threads notify others exactly once, never the actor."""
from __future__ import annotations

from app.core.services import app_services
from tests.comments.conftest import LESSON


def test_reply_notifies_the_author_once_and_never_the_replier(kim, lee):
    root = kim.comment("question")
    assert kim.unread() == 0  # own comment: nothing
    lee.comment("answer", parent_id=root)
    assert kim.unread() == 1 and lee.unread() == 0
    kim.comment("thanks", parent_id=root)  # kim answers in her own thread: lee follows it (he commented)
    assert kim.unread() == 1 and lee.unread() == 1
    listed = kim.client.get("/api/notifications").json()["notifications"]
    assert [(n["kind"], n["actor"], n["lesson"]) for n in listed] == [("reply", "lee", LESSON)]


def test_one_notification_even_with_two_reasons(kim, lee):
    root = kim.comment("q")  # kim follows the thread and authored the parent
    lee.comment("a", parent_id=root)
    kinds = [n["kind"] for n in kim.client.get("/api/notifications").json()["notifications"]]
    assert kinds == ["reply"]


def test_thread_followers_hear_about_new_comments(kim, lee, browser_factory):
    park = browser_factory().signup("park")
    assert park.send("PUT", f"/api/lessons/{LESSON}/comments/follow").status_code == 200
    kim.comment("a new top-level comment")
    assert park.unread() == 1
    kinds = [n["kind"] for n in park.client.get("/api/notifications").json()["notifications"]]
    assert kinds == ["thread"]
    assert park.send("DELETE", f"/api/lessons/{LESSON}/comments/follow").status_code == 200
    lee.comment("another")
    assert park.unread() == 1


def test_setting_off_silences_and_mark_read(kim, lee):
    root = kim.comment("q")
    assert kim.send("PUT", "/api/notifications/settings", {"mode": "off"}).json()["mode"] == "off"
    lee.comment("a1", parent_id=root)
    assert kim.unread() == 0
    kim.send("PUT", "/api/notifications/settings", {"mode": "reply"})
    second = lee.comment("a2", parent_id=root)
    third = lee.comment("a3", parent_id=root)
    assert kim.unread() == 2
    items = kim.client.get("/api/notifications").json()["notifications"]
    assert [n["comment_id"] for n in items] == [third, second]
    assert lee.send("POST", f"/api/notifications/{items[0]['id']}/read").json()["changed"] is False  # not his
    assert kim.send("POST", f"/api/notifications/{items[0]['id']}/read").json()["unread"] == 1
    assert kim.send("POST", "/api/notifications/read-all").json()["unread"] == 0
    assert kim.unread() == 0


def test_hidden_or_deleted_comments_drop_out_of_the_bell(kim, lee, teacher):
    root = kim.comment("q")
    reply = lee.comment("spam reply", parent_id=root)
    assert kim.unread() == 1
    teacher.send("POST", f"/api/comments/{reply}/hide")
    assert kim.unread() == 0
    assert kim.client.get("/api/notifications").json()["notifications"] == []


def test_notifications_page_forms(kim, lee):
    root = kim.comment("q")
    lee.comment("a", parent_id=root)
    page = kim.client.get("/ko/notifications")
    assert page.status_code == 200 and "lee 님이" in page.text and "읽지 않음 1개" in page.text
    english = kim.client.get("/en/notifications").text
    assert "lee replied to your comment on" in english
    refused = kim.client.post("/en/notifications/read-all", data={}, follow_redirects=False)
    assert refused.status_code == 403
    done = kim.client.post("/en/notifications/read-all", data={"csrf_token": kim.csrf}, follow_redirects=False)
    assert done.status_code == 303 and kim.unread() == 0
    off = kim.client.post("/en/notifications/settings", data={"csrf_token": kim.csrf, "mode": "off"},
                          follow_redirects=False)
    assert off.status_code == 303
    assert kim.client.get("/api/notifications").json()["mode"] == "off"
    visitor_page = lee.client.__class__(kim.client.app).get("/en/notifications", follow_redirects=False)
    assert visitor_page.status_code == 303 and "/en/signin" in visitor_page.headers["location"]


def test_notifying_twice_for_the_same_comment_creates_nothing_new(app, kim, lee):
    from sqlalchemy import func, select

    from app.comments.models import Comment
    from app.notifications import service
    from app.notifications.models import Notification

    root = kim.comment("q")
    reply = lee.comment("a", parent_id=root)
    with app_services(app).session_factory() as db:
        comment = db.get(Comment, reply)
        assert service.comment_posted(db, comment, db.get(Comment, root)) == 0  # a retry: the key holds
        db.commit()
        assert db.scalar(select(func.count()).select_from(Notification)) == 1
