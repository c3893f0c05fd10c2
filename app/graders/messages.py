"""Refusals of the graders' API and forms, in the reader's language."""
from __future__ import annotations

from app.core.errors import AppError, translate


def _(text: str) -> str:
    return text


ERRORS = {
    "reason_required": _("A reason is required."),
    "reason_too_long": _("The reason is too long (at most 2000 characters)."),
    "bad_verdict": _("Choose one of the verdicts offered."),
    "not_graded": _("Only a graded submission can have its verdict overridden."),
    "own_submission": _("You cannot override the verdict of your own submission; another grader has to."),
    "same_verdict": _("This submission already has that verdict."),
    "already_queued": _("This submission is already waiting or running."),
    "bad_json": _("The request body must be a JSON object."),
}

DONE = {
    "note": _("Note saved."),
    "override": _("Verdict overridden."),
    "rerun": _("Queued for grading again."),
}


class ReviewError(AppError):
    """A refused grader action: an AppError that reads its texts here (not_found: app/core/errors.py)."""

    messages = ERRORS


def text(table: dict[str, str], code: str, lang: str) -> str:
    return translate(table, code, lang)
