"""The authoring guide (lessons/AUTHORING.<lang>.md), rendered for the instructors' page.

Top-level files in lessons/ are not lessons: the catalog only reads NN-slug folders.
"""
from __future__ import annotations

from pathlib import Path

from app.core.filecache import FileCache
from app.rendering.markdown import render_markdown


def guide_path(lessons_dir: Path, lang: str) -> Path:
    return lessons_dir / f"AUTHORING.{lang}.md"


def _render(key: tuple[Path, str]) -> str | None:
    path, lang = key
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    # The guide's own "# title" is shown by the page; sections start at ## like a lesson.
    lines = text.splitlines(keepends=True)
    if lines and lines[0].startswith("# "):
        text = "".join(lines[1:])
    return render_markdown(text, lang).html


_cache: FileCache[tuple[Path, str], str | None] = FileCache(lambda key: [key[0]], _render)


def guide_html(lessons_dir: Path, lang: str) -> str | None:
    """The guide in ``lang`` as HTML (rendered again when the file changes), or None if absent."""
    return _cache.get((guide_path(lessons_dir, lang), lang))
