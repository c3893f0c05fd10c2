"""Reading a value out of a page the tests fetched, failing with the page's text when it is not there
(a bare ``re.search(...).group(1)`` fails with "'NoneType' object has no attribute 'group'")."""
from __future__ import annotations

import re


def first_group(pattern: re.Pattern[str] | str, text: str) -> str:
    """The first group of ``pattern``'s first match in ``text``."""
    match = re.search(pattern, text)
    assert match is not None, f"no match for {getattr(pattern, 'pattern', pattern)!r} in:\n{text[:3000]}"
    return match.group(1)
