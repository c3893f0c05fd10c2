"""Refusals of the classes' pages and API, and the pages' confirmations, with their English text
(msgids for gettext).

Codes every feature shares (auth_required, forbidden, not_found) are in app/core/errors.py.
"""
from __future__ import annotations

from app.core.errors import AppError


def _(text: str) -> str:
    return text


MESSAGES = {
    "class_name_required": _("Give the class a name (at most 120 characters)."),
    "term_too_long": _("The term can have at most 64 characters."),
    "bad_language": _("Choose Korean or English for the class's notices."),
    "bad_timezone": _("Choose a time zone from the list (for example Asia/Seoul)."),
    "external_id_taken": _("Another class is already linked to that outside course."),
    "bad_role": _("Choose learner, grader or instructor."),
    "invite_closed": _("This invite link or code is closed or was replaced. Ask your instructor for the current one."),
    "already_member": _("You are already in this class."),
    "user_unknown": _("No account has the username “%(username)s”."),
    "last_instructor": _("A class needs at least one instructor. Add another before removing this one."),
    "not_member": _("That person is not in this class."),
    "last_instructor_account": _("You are the only instructor of “%(name)s”. Add another instructor there before "
                                 "deleting your account."),
    "csv_too_large": _("The CSV is too large (at most %(rows)s rows)."),
    "csv_unreadable": _("The CSV could not be read. Save it as UTF-8 text with a header row naming a "
                        "“username” column."),
    "title_required": _("Give the assignment a title (at most 120 characters)."),
    "bad_time": _("Enter the opening and due times as dates and times (for example 2026-12-04 23:59)."),
    "due_before_open": _("The due time must come after the opening time."),
    "items_required": _("Name at least one lesson or exercise."),
    "unknown_lesson": _("There is no lesson “%(ref)s”."),
    "unknown_exercise": _("There is no exercise “%(ref)s”."),
    "bad_tier": _("Choose “passed” or a speed tier that every exercise of the assignment has."),
    "bad_late_policy": _("Choose whether late work is accepted and marked late, or not counted."),
    "too_many_items": _("An assignment can name at most %(count)s lessons and exercises."),
    "alias_too_long": _("An alias can have at most 32 characters."),
    "alias_required": _("Choose an alias to show instead of your name."),
    "reason_required": _("A reason is required (at most 2000 characters)."),
    "not_on_board": _("That submission is not on a leaderboard."),
    "already_struck": _("That entry was already struck."),
    "board_off": _("This class has no leaderboards."),
}


class ClassesError(AppError):
    """A refused class action: an AppError that reads its texts here."""

    messages = MESSAGES


# What a page says after a form did what was asked (``?done=<key>``).
DONE = {
    "created": _("Class created. Share the invite link with your learners."),
    "settings": _("Settings saved."),
    "rotated": _("A new invite code is ready; the old link no longer works."),
    "closed": _("The invite is closed: nobody can join with a link or code until you make a new one."),
    "member": _("Member saved."),
    "imported": _("The CSV was read."),
    "removed": _("Removed from the class."),
    "assignment": _("Assignment created."),
    "deleted": _("Assignment deleted."),
    "joined": _("You joined the class."),
    "profile": _("Saved. Leaderboards show you as you chose."),
    "struck": _("The entry was struck; the learner has been notified."),
}
