"""One page of a lesson's comments, as the reader may see it.

Top-level comments are paginated (newest or oldest first); each comes with all its replies in
conversation order (depth first, oldest first). Replies indent up to MAX_INDENT levels; deeper
ones stay at that level and say whom they answer. A hidden or deleted comment shows to readers
only as a short placeholder, and only when visible replies hang below it; moderators see hidden
text (marked as hidden).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.comments.models import Comment, CommentThread
from app.comments.permissions import can_moderate

MAX_INDENT = 3
SORTS = ("newest", "oldest")


@dataclass
class CommentView:
    id: int
    parent_id: int | None
    depth: int  # shown indentation, 0..MAX_INDENT
    author: str | None  # None: deleted account
    author_id: int | None
    lang: str
    html: str
    created_at: dt.datetime
    edited: bool
    helpful: bool
    state: str  # "visible" | "hidden" (by a moderator; only moderators see its text) | "deleted" (by its author)
    in_reply_to: str | None = None  # set when the reply sits deeper than the indentation shows
    parent_author_id: int | None = None
    can_edit: bool = False
    can_mark_helpful: bool = False


@dataclass
class ThreadPage:
    slug: str
    count: int
    sort: str
    page: int
    pages: int
    locked: bool
    comments: list[CommentView] = field(default_factory=list)


def visible_count(db: Session, slug: str) -> int:
    return db.scalar(select(func.count()).select_from(Comment).join(CommentThread, CommentThread.id == Comment.thread_id)
                     .where(CommentThread.lesson_slug == slug, Comment.hidden_at.is_(None),
                            Comment.deleted_at.is_(None))) or 0


def thread_page(db: Session, slug: str, viewer: User | None, *, sort: str = "newest", page: int = 1,
                page_size: int = 10, focus: int | None = None) -> ThreadPage:
    sort = sort if sort in SORTS else "newest"
    thread = db.scalar(select(CommentThread).where(CommentThread.lesson_slug == slug))
    if thread is None:
        return ThreadPage(slug, 0, sort, 1, 1, False)
    moderator = can_moderate(viewer)
    rows = db.execute(select(Comment, User.username).outerjoin(User, User.id == Comment.author_id)
                      .where(Comment.thread_id == thread.id).order_by(Comment.created_at, Comment.id)).all()
    by_id = {c.id: c for c, _ in rows}
    names = {c.id: name for c, name in rows}
    children: dict[int | None, list[Comment]] = {}
    for comment, _ in rows:
        parent = comment.parent_id if comment.parent_id in by_id else None
        children.setdefault(parent, []).append(comment)

    def readable(c: Comment) -> bool:
        return c.deleted_at is None and (c.hidden_at is None or moderator)

    shown: dict[int, bool] = {}

    def keep(c: Comment) -> bool:  # shown itself, or as a placeholder above something shown
        if c.id not in shown:
            below = [keep(child) for child in children.get(c.id, [])]  # every child gets decided
            shown[c.id] = readable(c) or any(below)
        return shown[c.id]

    roots = [c for c in children.get(None, []) if keep(c)]
    if sort == "newest":
        roots.reverse()
    pages = max(1, -(-len(roots) // page_size))
    if focus is not None and focus in by_id:
        top = by_id[focus]
        while top.parent_id in by_id:
            top = by_id[top.parent_id]
        if top in roots:
            page = roots.index(top) // page_size + 1
    page = min(max(1, page), pages)

    def view(c: Comment, depth: int) -> CommentView:
        if c.deleted_at is not None:
            state = "deleted"
        elif c.hidden_at is not None:
            state = "hidden"
        else:
            state = "visible"
        parent = by_id.get(c.parent_id) if c.parent_id else None
        text_shown = state == "visible" or (state == "hidden" and moderator)
        mine = viewer is not None and c.author_id == viewer.id
        return CommentView(
            id=c.id, parent_id=c.parent_id, depth=min(depth, MAX_INDENT),
            author=names[c.id] if text_shown else None, author_id=c.author_id if text_shown else None,
            lang=c.lang, html=c.body_html if text_shown else "", created_at=c.created_at,
            edited=c.edited_at is not None and text_shown, helpful=c.helpful_at is not None and text_shown,
            state=state,
            in_reply_to=((names.get(parent.id) if readable(parent) else None) or "…")
            if parent is not None and depth > MAX_INDENT else None,
            parent_author_id=parent.author_id if parent is not None else None,
            can_edit=mine and state == "visible" and thread.locked_at is None,
            can_mark_helpful=(viewer is not None and parent is not None and parent.author_id == viewer.id
                              and not mine and c.helpful_at is None and state == "visible"),
        )

    out: list[CommentView] = []

    def walk(c: Comment, depth: int) -> None:
        out.append(view(c, depth))
        for child in children.get(c.id, []):
            if shown.get(child.id):
                walk(child, depth + 1)

    for root in roots[(page - 1) * page_size: page * page_size]:
        walk(root, 0)
    count = sum(1 for c, _ in rows if c.deleted_at is None and c.hidden_at is None)
    return ThreadPage(slug, count, sort, page, pages, thread.locked_at is not None, out)
