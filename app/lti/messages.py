"""Refusals of the LTI pages with their English text (msgids; Korean in the catalog).

A refused launch names what was wrong in words a learner or an LMS administrator can act on, never a
key, a token or a stack trace.
"""
from __future__ import annotations

from app.core.errors import AppError


def _(text: str) -> str:
    return text


MESSAGES = {
    "launch_invalid": _("The launch from your LMS could not be verified. Open the activity again from your course."),
    "launch_replayed": _("This launch was already used. Open the activity again from your course."),
    "launch_expired": _("This launch has expired. Open the activity again from your course."),
    "launch_state": _("This launch did not start here, or your browser blocked the cookie it needs. "
                      "Open the activity again from your course; if it keeps failing, allow cookies for this site."),
    "unknown_platform": _("This LMS (issuer and client id) is not registered here. Ask an administrator to register it."),
    "unknown_deployment": _("This deployment of the tool is not registered here. Ask an administrator to add its deployment id."),
    "bad_signature": _("The launch's signature does not match the LMS's keys. It may have been altered."),
    "handoff_used": _("This sign-in link was already used or has expired. Open the activity again from your course."),
    "not_instructor": _("Only an instructor of the course can choose what this link opens."),
    "unknown_resource": _("The lesson or exercise this link names does not exist (any more)."),
    "platform_field": _("Fill in every field: issuer, client id, the three URLs and at least one deployment id."),
    "platform_url": _("The URLs must start with https:// (http:// only for localhost)."),
    "platform_exists": _("This issuer and client id are already registered."),
    "identity_taken": _("This LMS account is already linked to an account here."),
    "no_roster": _("Your LMS did not offer the roster service for this course."),
    "roster_failed": _("The roster could not be read from your LMS. Try again later."),
}

# how the Deep Linking picker names one of the class's assignments
ASSIGNMENT_CHOICE = _("Assignment: %(title)s")


class LtiError(AppError):
    """A refusal of the LTI pages: an AppError that reads its texts here."""

    messages = MESSAGES
