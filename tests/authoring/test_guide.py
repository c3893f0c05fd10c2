"""The authoring guide exists in both languages, mirrors itself, and names what really exists."""
from __future__ import annotations

import re

import pytest

from app.core.config import PROJECT_ROOT
from app.lessons.catalog import load_catalog
from app.lessons.prose import structure
from app.templating import STATIC_DIR

LESSONS = PROJECT_ROOT / "lessons"
GUIDES = {lang: LESSONS / f"AUTHORING.{lang}.md" for lang in ("en", "ko")}


def test_guides_mirror_each_other():
    parts = {lang: structure(path.read_text(encoding="utf-8"), 1) for lang, path in GUIDES.items()}
    assert [level for level, _ in parts["en"].headings] == [level for level, _ in parts["ko"].headings]
    assert len(parts["en"].code_lines) == len(parts["ko"].code_lines)
    assert parts["ko"].hangul > 0.8 * parts["en"].words  # the same rule as for lessons


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_guide_covers_lessons_and_exercises(lang):
    text = GUIDES[lang].read_text(encoding="utf-8")
    for needle in ("python -m app lessons new", "python -m app lessons check", "cuda fragment", "```cpp",
                   "::: note", "::: warning", "::: exercise", "::: measured", "::: ladder", "/static/img/lessons/",
                   "spec.yaml", "reference.py", "naive.cu", "tiled.cu", "starter.cu", "solutions/correct",
                   "solutions/wrong", "hostile", "tests/exercises", "-m gpu tests/gpu", "kernels.engine check",
                   "bench_references", "status: published"):
        assert needle in text.replace("`` ```cpp", "```cpp"), needle


def test_paths_the_guide_names_exist():
    text = GUIDES["en"].read_text(encoding="utf-8")
    for path in set(re.findall(r"`((?:kernels|tests|app|lessons)/[\w./-]+\.(?:py|md|yaml))`", text)):
        assert (PROJECT_ROOT / path).exists(), path
    for folder in ("kernels/col_sum", "kernels/gemm/hostile", "kernels/gemm/solutions/correct"):
        assert (PROJECT_ROOT / folder).is_dir()


def test_the_catalog_does_not_take_the_guides_for_lessons():
    snapshot = load_catalog(LESSONS, STATIC_DIR, PROJECT_ROOT / "kernels")
    assert all("AUTHORING" not in str(p.file) for p in snapshot.problems)
    assert all(not lesson.folder.name.startswith("AUTHORING") for lesson in snapshot.lessons)
