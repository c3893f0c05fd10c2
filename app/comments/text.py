"""Checking what a person typed: not empty (invisible characters count as empty), not too long."""
from __future__ import annotations

import re
import unicodedata

# Characters that render as nothing: zero-width spaces and joiners, word joiner, BOM, Hangul fillers.
INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u3164\u115f\u1160\uffa0\u00ad]")


def normalise(text: str) -> str:
    """NFC, unified line ends, no trailing spaces at the end of the text."""
    return unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n")).rstrip()


def is_blank(text: str) -> bool:
    return INVISIBLE.sub("", text).strip() == ""
