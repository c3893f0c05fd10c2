"""``::: ladder 04-13`` in a lesson: the measured numbers of a range of rungs, with a link to the
ladder page. Called by ResultsStore.html (app/lessons/measured.py) for markers "ladder:NN-MM", so
the block is cached and refreshed exactly like the ``::: measured`` tables."""
from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from app.ladder.content import ContentStore
from app.ladder.present import lesson_block
from app.ladder.results import newest_ladder

RANGE = re.compile(r"^(\d{1,2})-(\d{1,2})$")
_stores: dict[Path, ContentStore] = {}
_stores_lock = threading.Lock()


def parse_range(spec: str) -> tuple[int, int] | None:
    """"04-13" -> (4, 13); a single rung is "07-07"; anything else -> None."""
    match = RANGE.match(spec.strip())
    if not match:
        return None
    first, last = int(match.group(1)), int(match.group(2))
    return (first, last) if 1 <= first <= last else None


def content_store(ladder_dir: Path) -> ContentStore:
    with _stores_lock:
        store = _stores.get(ladder_dir)
        if store is None:
            store = _stores[ladder_dir] = ContentStore(ladder_dir)
        return store


def render_embed(spec: str, documents: list[dict[str, Any]], ladder_dir: Path, lang: str) -> str:
    bounds = parse_range(spec)
    if bounds is None:
        return ""  # a malformed range renders nothing, like one that matches no rung
    rungs = content_store(ladder_dir).get().select(*bounds)
    if not rungs:
        return ""  # a range that matches no rung renders nothing (tests pin the lessons' ranges)
    return lesson_block(rungs, newest_ladder(documents), lang, chart_id=f"ladder-{bounds[0]:02d}-{bounds[1]:02d}")
