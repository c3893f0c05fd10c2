"""Usernames: 3-32 letters (any script), digits, '_', '.', '-'; unique without regard to case."""
from __future__ import annotations

import re
import unicodedata

MIN_LENGTH = 3
MAX_LENGTH = 32
# \w is Unicode-aware: Hangul and other letters are welcome; '<', '>', '&', quotes, spaces are not.
PATTERN = re.compile(r"^[\w.\-]+$")
RESERVED = frozenset({"admin", "administrator", "root", "system", "support", "staff", "grader", "api", "null"})


def normalize(username: str) -> str:
    return unicodedata.normalize("NFKC", username.strip())


def username_key(username: str) -> str:
    return normalize(username).casefold()


def username_problem(username: str) -> str | None:
    """An error code for an unacceptable username, or None."""
    name = normalize(username or "")
    if not name:
        return "username_empty"
    if len(name) > MAX_LENGTH:
        return "username_too_long"
    if len(name) < MIN_LENGTH:
        return "username_too_short"
    if not PATTERN.match(name) or any(unicodedata.category(c).startswith("C") for c in name):
        return "username_chars"
    if name.casefold() in RESERVED:
        return "username_taken"
    return None
