"""Refusals of the comments, notifications and reports features: a code, an HTTP status and an
English text that is also the gettext msgid (``_`` only marks it for extraction)."""
from __future__ import annotations

from typing import Any

from app.core.errors import AppError


def _(text: str) -> str:
    return text


MESSAGES = {
    "empty": _("Write something first: a comment cannot be empty or only spaces."),
    "too_long": _("A comment can have at most %(max)s characters (this one has %(n)s)."),
    "rate_limited": _("You are commenting too fast. Please wait %(seconds)s seconds and try again."),
    "locked": _("This thread is locked: no new comments or replies."),
    "not_found": _("That comment does not exist or is no longer visible."),
    "lesson_not_found": _("There is no such lesson."),
    "not_yours": _("You can only change your own comments."),
    "sign_in": _("Please sign in to comment."),
    "forbidden": _("Only instructors and administrators can do that."),
    "helpful_not_parent": _("Only the author of the comment that was answered can mark a reply as helpful."),
    "helpful_own": _("You cannot mark your own reply as helpful."),
    "helpful_done": _("This reply is already marked as helpful."),
    "deleted": _("A deleted comment cannot be changed or answered."),
    "report_reason": _("Say briefly what is wrong with this comment (up to 1000 characters)."),
    "report_done": _("You have already reported this comment."),
    "report_limited": _("Too many reports from here. Please wait %(seconds)s seconds and try again."),
    "problem_empty": _("Describe the problem in a few words."),
    "problem_too_long": _("The description can have at most %(max)s characters."),
    "quote_too_long": _("The quoted text can have at most %(max)s characters."),
    "bad_request": _("The request could not be read."),
}


class CommentsError(AppError):
    """A refusal of these features: an AppError that reads its texts here."""

    messages = MESSAGES


def message(code: str, lang: str, **values: Any) -> str:
    return CommentsError(code, values).message(lang)
