"""`lessons new`: a scaffolded lesson is a valid draft whose placeholders the check refuses until they are
replaced; bad requests write nothing."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from app.core.config import PROJECT_ROOT
from app.lessons.catalog import load_catalog
from app.lessons.check import check_course
from app.lessons.scaffold import ScaffoldError, scaffold_lesson
from app.lessons.scaffold import placeholders as placeholders_of
from app.templating import STATIC_DIR

from .kit import good_lesson

KERNELS = PROJECT_ROOT / "kernels"


def cli(*args, cwd=PROJECT_ROOT, tmp_path):
    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path / "data"))
    return subprocess.run([sys.executable, "-m", "app", "lessons", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_new_lesson_is_a_draft_that_passes_the_check_once_its_placeholders_are_written(lessons_dir):
    good_lesson(lessons_dir, 1, "first")
    folder = scaffold_lesson(lessons_dir, "warp-tiling", kernels_dir=KERNELS, exercise="gemm")
    assert folder.name == "02-warp-tiling"
    assert sorted(p.name for p in folder.iterdir()) == ["en.md", "ko.md", "lesson.yaml"]
    lesson = load_catalog(lessons_dir, STATIC_DIR, KERNELS).get("warp-tiling")
    assert lesson is not None and lesson.meta.status == "draft" and lesson.meta.exercise == "gemm"
    assert set(lesson.texts) == {"ko", "en"}
    en, ko = lesson.texts["en"].body, lesson.texts["ko"].body
    assert en.count("\n## ") == ko.count("\n## ") == 4 and en.count("```") == ko.count("```") == 6
    assert 'extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K);' in en
    assert "::: measured gemm" in ko
    report = check_course(lessons_dir, STATIC_DIR, KERNELS, min_kernels=0)
    assert report.compiled == 4 and report.fragments == 2
    placeholders = [p for p in report.problems if "placeholder is still here" in p.message]
    assert placeholders and placeholders == report.problems and all(p.severity == "error" for p in placeholders)
    assert {p.file.name for p in placeholders} == {"en.md", "ko.md"}
    # the author writes the lesson: the check passes
    for lang, own in (("en", "Own words."), ("ko", "직접 쓴 문장이에요.")):
        path = folder / f"{lang}.md"
        text = path.read_text(encoding="utf-8").replace(" (번역할 제목)", "")
        for placeholder in placeholders_of(lang):
            text = text.replace(placeholder, own)
        path.write_text(text, encoding="utf-8")
    assert check_course(lessons_dir, STATIC_DIR, KERNELS, min_kernels=0).problems == []


def test_order_can_be_chosen(lessons_dir):
    folder = scaffold_lesson(lessons_dir, "later", kernels_dir=KERNELS, order=7)
    assert folder.name == "07-later" and "order: 7\n" in (folder / "lesson.yaml").read_text()
    assert "exercise: null" in (folder / "lesson.yaml").read_text()


@pytest.mark.parametrize("slug", ["Bad", "two--hyphens", "-leading", "under_score", "spa ce", "", "a" * 81])
def test_bad_slugs_are_refused(lessons_dir, slug):
    with pytest.raises(ScaffoldError, match="bad slug"):
        scaffold_lesson(lessons_dir, slug, kernels_dir=KERNELS)
    assert list(lessons_dir.iterdir()) == []


def test_existing_slug_or_order_is_refused(lessons_dir):
    good_lesson(lessons_dir, 3, "taken")
    with pytest.raises(ScaffoldError, match="already exists"):
        scaffold_lesson(lessons_dir, "taken", kernels_dir=KERNELS, order=4)
    with pytest.raises(ScaffoldError, match="order 3 is taken"):
        scaffold_lesson(lessons_dir, "fresh", kernels_dir=KERNELS, order=3)
    with pytest.raises(ScaffoldError, match="out of range"):
        scaffold_lesson(lessons_dir, "fresh", kernels_dir=KERNELS, order=100)
    assert [p.name for p in lessons_dir.iterdir()] == ["03-taken"]


def test_unknown_exercise_is_refused_with_the_known_ones(lessons_dir):
    with pytest.raises(ScaffoldError, match=r"unknown exercise 'nope'.*known exercises: .*gemm"):
        scaffold_lesson(lessons_dir, "fresh", kernels_dir=KERNELS, exercise="nope")
    assert list(lessons_dir.iterdir()) == []


def test_cli_new_then_check(lessons_dir, tmp_path):
    made = cli("new", "shared-tiles", "--exercise", "transpose", "--dir", str(lessons_dir), tmp_path=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "created" in made.stdout and (lessons_dir / "01-shared-tiles" / "ko.md").is_file()
    again = cli("new", "shared-tiles", "--dir", str(lessons_dir), tmp_path=tmp_path)
    assert again.returncode == 2 and "error: a lesson with slug 'shared-tiles' already exists" in again.stderr
    bad = cli("new", "Bad_Slug", "--dir", str(lessons_dir), tmp_path=tmp_path)
    assert bad.returncode == 2 and "error: bad slug 'Bad_Slug'" in bad.stderr
    unknown = cli("new", "other", "--exercise", "nope", "--dir", str(lessons_dir), tmp_path=tmp_path)
    assert unknown.returncode == 2 and "unknown exercise 'nope'" in unknown.stderr
    checked = cli("check", "--dir", str(lessons_dir), "--min-kernels", "0", "--strict", tmp_path=tmp_path)
    assert checked.returncode == 1, checked.stdout + checked.stderr  # the skeleton is not a lesson yet
    assert "placeholder is still here" in checked.stdout + checked.stderr
