"""The weighted lists of Accept-* headers (Accept-Language, Accept-Encoding): ``name;q=0.5, other``.
RFC 9110 §12.4.2: a missing q is 1, an unreadable one counts as 0 (not acceptable)."""
from __future__ import annotations

MAX_ITEMS = 32  # a header longer than this is not a browser's: the rest is ignored


def weighted(header: str | None) -> list[tuple[str, float]]:
    """(lower-cased name, q) for each item, in the header's order."""
    items = []
    for part in (header or "").split(",")[:MAX_ITEMS]:
        name, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name.strip():
            items.append((name.strip().lower(), q))
    return items
