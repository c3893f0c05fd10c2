"""Response models of the notifications API (/api/notifications...). Times are UTC ISO 8601 with a
trailing Z; each notification carries its sentence in the reader's language and the link it leads to."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.core.answers import Answer

Mode = Literal["reply", "off"]


class Summary(Answer):
    unread: int
    inbox: int | None = Field(description="open comment reports, for moderators; null for everyone else")


class VerdictChange(Answer):
    submission: int
    exercise: str | None
    before: str | None = Field(description="the verdict that counted before the grader acted")
    after: str | None = Field(description="the grader's verdict; null for a note")
    note: str = Field(description="the grader's reason")
    xp_delta: int
    grader: str | None


class BoardStrike(Answer):
    submission: int
    exercise: str | None
    note: str = Field(description="the grader's reason")
    grader: str | None
    class_id: int | None = Field(description="the class whose board it was struck from; null: the site's")


class NotificationOut(Answer):
    id: int
    kind: Literal["reply", "thread", "verdict", "strike"]
    actor: str | None = Field(description="who acted; null when their account is gone")
    lesson: str | None = Field(description="the lesson of a comment's thread")
    comment_id: int | None
    lang: str | None
    read: bool
    created_at: str
    review: VerdictChange | None = Field(default=None, description="present for a verdict change only")
    strike: BoardStrike | None = Field(default=None, description="present for a leaderboard strike only")
    text: str = Field(description="the notification in a sentence, in the reader's language")
    note: str | None = Field(default=None, description="the grader's reason: present for a verdict change or a strike")
    link: str | None = Field(description="where it leads (a path on this site)")


class NotificationList(Answer):
    unread: int
    mode: Mode = Field(description="reply: notified of replies; off: not notified")
    notifications: list[NotificationOut]


class ReadOne(Answer):
    read: Literal[True]
    changed: bool = Field(description="false: it was read already (or is not yours)")
    unread: int


class ReadAll(Answer):
    changed: int = Field(description="how many were marked read")
    unread: Literal[0]


class ModeOut(Answer):
    mode: Mode
