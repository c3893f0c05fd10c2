"""Every reply stores the top-level comment of its thread (``root_id``: a page of threads is one query),
however deep it is; a top-level comment stores none."""
from __future__ import annotations

from sqlalchemy import select

from app.comments.models import Comment
from app.core.services import app_services


def test_every_reply_stores_the_top_comment_of_its_thread(app, kim, lee):
    top = kim.comment("top")
    other_top = lee.comment("another thread")
    chain = [top]
    for depth in range(1, 5):
        chain.append((lee if depth % 2 else kim).comment(f"depth {depth}", parent_id=chain[-1]))
    with app_services(app).session_factory() as db:
        roots = dict(db.execute(select(Comment.id, Comment.root_id)).all())
    assert roots == {top: None, other_top: None, **{reply: top for reply in chain[1:]}}
