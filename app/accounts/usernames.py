"""Usernames: 3-32 letters (any script), digits, '_', '.', '-'; unique without regard to case, and
none may look like another (``skeletons``)."""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

MIN_LENGTH = 3
MAX_LENGTH = 32
# \w is Unicode-aware: Hangul and other letters are welcome; '<', '>', '&', quotes, spaces are not.
PATTERN = re.compile(r"^[\w.\-]+$")
RESERVED = frozenset({"admin", "administrator", "root", "system", "support", "staff", "grader", "api", "null"})


def normalize(username: str) -> str:
    return unicodedata.normalize("NFKC", username.strip())


def username_key(username: str) -> str:
    return normalize(username).casefold()


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each character that looks like others -> one representative of its look-alike class.

    The data is Unicode's confusables.txt (UTS #39) as the confusable-homoglyphs package ships it: for
    each character, the characters that look like it. Classes are the connected groups of that relation
    (single characters only), and a class's representative is its smallest character, so Cyrillic "а"
    and Latin "a" share one, and "l", "1", "I" and "|" share another.
    """
    from confusable_homoglyphs import utils

    parent: dict[str, str] = {}

    def find(c: str) -> str:
        parent.setdefault(c, c)
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for char, homoglyphs in utils.load("confusables.json").items():
        for other in homoglyphs:
            if len(char) == 1 and len(other["c"]) == 1:
                a, b = find(char), find(other["c"])
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: find(c) for c in parent if find(c) != c}


def skeletons(username: str) -> frozenset[str]:
    """What a name looks like (after UTS #39's skeleton): names that share a skeleton look alike.

    Look-alikes are mapped before and after case folding, and after folding alone, so "aIice1" (capital I),
    "аlice1" (Cyrillic а) and "Alice1" all meet "alice1", and "kіm" (Cyrillic і) meets "KIM".
    """
    table = _prototypes()

    def look(text: str) -> str:
        return "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))

    name = normalize(username)
    return frozenset({look(look(name).casefold()), look(name.casefold())})


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
