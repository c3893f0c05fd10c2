"""Messages of ``lessons check`` and the catalog that a page can show in the reader's language.

The command prints English; instructors read the same findings on a lesson's page and at
/{lang}/authoring in Korean or English. A ``Said`` is the English text itself (a str, so every
caller that prints, compares or searches it keeps working) that also remembers its msgid and
values; ``in_language`` formats it again from the reader's catalog.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _(text: str) -> str:
    """Marks a msgid for extraction (app/i18n/tools.py); the message is formatted by ``Said``."""
    return text


class Said(str):
    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, **params: Any) -> Said:
        self = super().__new__(cls, template % params if params else template)
        self.template, self.params = template, params
        return self

    # a str subclass with its own constructor arguments: pickled as the call that makes it again
    def __reduce__(self) -> tuple[Callable[[str, dict[str, Any]], Said], tuple[str, dict[str, Any]]]:
        return (_said, (self.template, self.params))


def _said(template: str, params: dict[str, Any]) -> Said:
    return Said(template, **params)


def in_language(message: str, gettext: Callable[[str], str]) -> str:
    """``message`` in the catalog's language when it is a Said; other text (a YAML parser's or
    pydantic's message) as it is."""
    if not isinstance(message, Said):
        return message
    translated = gettext(message.template)
    return translated % message.params if message.params else translated
