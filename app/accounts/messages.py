"""Error codes of the accounts pages and API, with their English text (msgids for gettext).

``_`` here only marks strings for extraction (app/i18n/tools.py); pages translate them with
the reader's catalog, the API returns both the code and the translated text. Codes every feature
shares (auth_required, forbidden, not_found) are in app/core/errors.py.
"""
from __future__ import annotations

from app.core.errors import AppError


def _(text: str) -> str:
    return text


MESSAGES = {
    "username_empty": _("Choose a username."),
    "username_too_short": _("A username needs at least 3 characters."),
    "username_too_long": _("A username can have at most 32 characters."),
    "username_chars": _("A username may contain only letters, digits, '_', '.' and '-'."),
    "username_taken": _("That username is taken. Please choose another."),
    "password_empty": _("Choose a password."),
    "password_too_short": _("A password needs at least 10 characters."),
    "password_too_long": _("A password can have at most 256 characters."),
    "password_common": _("That password is too easy to guess. Choose a less common one."),
    "password_has_username": _("A password must not contain the username."),
    "password_mismatch": _("The two passwords do not match."),
    "wrong_credentials": _("Wrong username or password."),
    "wrong_password": _("The password is not correct."),
    "rate_limited": _("Too many attempts. Please wait a few minutes and try again."),
    "csrf": _("This form has expired or did not come from this site. Reload the page and try again."),
    "bad_token": _("The API token is not valid or has been revoked."),
    "bad_role": _("Unknown role."),
    "last_admin": _("The last administrator cannot give up that role."),
    "own_xp": _("You cannot adjust your own XP; another grader or an administrator has to."),
    "confusable_username": _("This username looks like an existing one. Please choose another."),
    "bad_timezone": _("Unknown time zone."),
    "token_name": _("Give the token a name of 1 to 64 characters."),
    "too_many_tokens": _("This account already has as many working tokens as it may have. Revoke one you no "
                         "longer use, then make a new one."),
    "bad_request": _("The request could not be read."),
    "confirm_required": _("Please confirm first."),
    "choose_contributions": _("Choose whether your comments and problem reports are deleted too or kept."),
    "reset_link_invalid": _("This password-reset link does not work: it was used already, it has expired, or a "
                            "newer one replaced it. Ask an administrator for a new link."),
}


class AccountsError(AppError):
    """A refusal of the accounts pages and API: an AppError that reads its texts here."""

    messages = MESSAGES


def message(code: str, lang: str) -> str:
    """The text of ``code`` for the reader (a form's error line)."""
    return AccountsError(code).message(lang)
