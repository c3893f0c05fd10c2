"""The authoring guide (lessons/AUTHORING.<lang>.md), rendered for the instructors' page.

Top-level files in lessons/ are not lessons: the catalog only reads NN-slug folders.
"""
from __future__ import annotations

from pathlib import Path

from app.rendering.markdown import render_markdown

_cache: dict[tuple[str, str], tuple[int, str]] = {}


def guide_path(lessons_dir: Path, lang: str) -> Path:
    return lessons_dir / f"AUTHORING.{lang}.md"


def guide_html(lessons_dir: Path, lang: str) -> str | None:
    """The guide in ``lang`` as HTML (re-rendered when the file changes), or None if absent."""
    path = guide_path(lessons_dir, lang)
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return None
    key = (str(path), lang)
    cached = _cache.get(key)
    if cached is None or cached[0] != mtime:
        text = path.read_text(encoding="utf-8")
        # The guide's own "# title" is shown by the page; sections start at ## like a lesson.
        lines = text.splitlines(keepends=True)
        if lines and lines[0].startswith("# "):
            text = "".join(lines[1:])
        cached = _cache[key] = (mtime, render_markdown(text, lang).html)
    return cached[1]
