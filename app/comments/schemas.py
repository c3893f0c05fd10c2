"""Response models of the comments API (/api/lessons/{slug}/comments..., /api/comments/{id}...).
Comment text comes as sanitised HTML; times are UTC ISO 8601 with a trailing Z."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.core.answers import Answer


class CommentOut(Answer):
    id: int
    parent_id: int | None = Field(description="the comment it answers; null for a top-level comment")
    depth: int = Field(ge=0, description="the indentation shown")
    author: str | None = Field(description="null: the account was deleted")
    lang: str
    html: str = Field(description="the text, rendered and sanitised")
    created_at: str
    edited: bool
    helpful: bool = Field(description="the thread's author marked this reply helpful")
    state: Literal["visible", "hidden", "deleted", "removed"] = Field(
        description="hidden: moderators see the text; deleted and removed show no text")
    in_reply_to: str | None = Field(description="whom the reply answers, when it sits deeper than the indentation shows")


class CommentPage(Answer):
    count: int = Field(description="visible comments in the thread")
    count_text: str = Field(description="the count in words, in the reader's language")
    sort: str
    page: int
    pages: int
    locked: bool
    following: bool = Field(description="you are notified of new comments in this thread")
    comments: list[CommentOut]
    html: str = Field(description="the page of comments rendered, for the lesson page to swap in")


class CommentPosted(Answer):
    id: int
    html: str
    lang: str
    count: int = Field(description="visible comments in the thread now")


class CommentDetail(Answer):
    id: int
    parent_id: int | None
    lang: str
    html: str
    edited: bool
    helpful: bool
    body: str = Field(default="", description="the markdown source: only for its author (absent for anyone else)")


class CommentEdited(Answer):
    id: int
    html: str
    edited: bool


class CommentDeleted(Answer):
    id: int
    deleted: Literal[True]


class MarkedHelpful(Answer):
    id: int = Field(description="the reply marked helpful")
    helpful: Literal[True]


class CommentVisibility(Answer):
    id: int
    hidden: bool


class CommentReported(Answer):
    id: int = Field(description="the report's id")
    reported: Literal[True]


class ThreadLock(Answer):
    locked: bool


class ThreadFollowing(Answer):
    following: bool
