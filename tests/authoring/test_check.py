"""`lessons check` on temporary lesson folders: one broken thing each, reported at file:line."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.config import PROJECT_ROOT
from app.lessons.check import check_course
from app.templating import STATIC_DIR

from .kit import EN_SENTENCE, FRAGMENT, KERNEL, KO_SENTENCE, SOURCES, body, good_lesson, line_of

NOT_CPP_FRAGMENT = "```cuda fragment title=\"x\"\nnot C++ at all {\n```\n"

KERNELS = PROJECT_ROOT / "kernels"


def check(lessons_dir: Path, *, kernels_dir: Path = KERNELS, compile_cuda: bool = False, min_kernels: int = 0):
    return check_course(lessons_dir, STATIC_DIR, kernels_dir, compile_cuda=compile_cuda, min_kernels=min_kernels)


def errors(report) -> list[str]:
    return [str(p) for p in report.errors]


def assert_error_at(report, path: Path, line: int, *fragments: str) -> None:
    prefix = f"{path}:{line}: error: "
    hits = [e for e in errors(report) if e.startswith(prefix) and all(f in e for f in fragments)]
    assert hits, f"no error at {prefix} with {fragments}; got {errors(report)}"


def test_a_good_lesson_passes(lessons_dir):
    good_lesson(lessons_dir, 1, "good")
    report = check(lessons_dir, compile_cuda=True)
    assert report.problems == []
    assert report.compiled == 2 and report.course_kernels == 1 and report.english_words == {"good": 1134}


def test_broken_schema(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "schema")
    meta = folder / "lesson.yaml"
    meta.write_text(meta.read_text().replace("xp: 10", "xp: -4"))
    assert_error_at(check(lessons_dir), meta, line_of(meta, "xp:"), "xp")


def test_missing_language(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "lonely")
    (folder / "ko.md").unlink()
    assert_error_at(check(lessons_dir), folder / "ko.md", 1, "no ko.md")


def test_heading_count_differs(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "headings", ko=body(KO_SENTENCE, ["아이디어", "세부", "덧붙임"]))
    ko = folder / "ko.md"
    assert_error_at(check(lessons_dir), ko, line_of(ko, "## 출처"), "4 headings", "en.md has 3")


def test_code_block_count_differs(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "blocks", en=body(EN_SENTENCE, ["Idea", "Detail"], extra="\n" + FRAGMENT))
    en = folder / "en.md"
    assert_error_at(check(lessons_dir), en, line_of(en, "cuda fragment"), "2 code blocks", "ko.md has 1")


@pytest.mark.parametrize("target, message", [
    ("ftp://example.org/notes", "bad scheme"),
    ("javascript:alert(1)", "bad scheme"),
    ("https://example.org/a b", "contains a space"),
    ("", "empty link target"),
    ("notes.md", "relative link"),
    ("https://", "no valid host"),
])
def test_malformed_body_link(lessons_dir, target, message):
    en_body = body(EN_SENTENCE, ["Idea", "Detail"], extra=f"\nSee [the notes]({target}) for more.\n")
    folder = good_lesson(lessons_dir, 1, "links", en=en_body)
    en = folder / "en.md"
    assert_error_at(check(lessons_dir), en, line_of(en, "[the notes]"), message)


def test_link_in_code_is_not_a_link(lessons_dir):
    en_body = body(EN_SENTENCE, ["Idea", "Detail"], extra="\nIndexing `a[i](j)` is not a link.\n")
    good_lesson(lessons_dir, 1, "codespan", en=en_body)
    assert errors(check(lessons_dir)) == []


def test_malformed_yaml_link(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "yamllink",
                         links='\n  - url: "https://example.org/a b"\n    title: {en: "T", ko: "제목"}')
    meta = folder / "lesson.yaml"
    assert_error_at(check(lessons_dir), meta, line_of(meta, "url:"), "contains a space")


def test_yaml_link_with_a_bad_scheme_breaks_the_schema(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "ftplink", links='\n  - url: "ftp://example.org/x"\n    title: {en: "T", ko: "제목"}')
    meta = folder / "lesson.yaml"
    assert_error_at(check(lessons_dir), meta, line_of(meta, "url:"), "links.0.url")


def test_internal_links_to_unknown_lesson_and_missing_static_file(lessons_dir):
    extra = ("\nNext: [lesson two](/en/lessons/no-such-lesson).\n\nData: [csv](/static/data/missing.csv).\n\n"
             "![figure](/static/img/lessons/missing.svg)\n\nFine: [index](/ko/) and [same page](#idea).\n")
    folder = good_lesson(lessons_dir, 1, "internal", en=body(EN_SENTENCE, ["Idea", "Detail"], extra=extra))
    en = folder / "en.md"
    report = check(lessons_dir)
    assert_error_at(report, en, line_of(en, "lesson two"), "unknown lesson 'no-such-lesson'")
    assert_error_at(report, en, line_of(en, "missing.csv"), "not found under static/")
    assert_error_at(report, en, line_of(en, "missing.svg"), "not found")
    assert len(report.errors) == 3


def test_link_to_a_known_lesson_passes(lessons_dir):
    extra = "\nNext: [lesson two](/en/lessons/second#idea).\n"
    good_lesson(lessons_dir, 1, "first", en=body(EN_SENTENCE, ["Idea", "Detail"], extra=extra))
    good_lesson(lessons_dir, 2, "second")
    assert check(lessons_dir).problems == []


def test_unknown_exercise(lessons_dir, tmp_path):
    kernels = tmp_path / "kernels"
    (kernels / "no_spec").mkdir(parents=True)  # a folder without spec.yaml
    (kernels / "broken").mkdir()
    (kernels / "broken" / "spec.yaml").write_text("id: broken\ntitle: 3\n")
    for number, exercise in ((1, "missing_folder"), (2, "no_spec"), (3, "broken")):
        good_lesson(lessons_dir, number, f"ex-{number}", exercise=exercise)
    report = check(lessons_dir, kernels_dir=kernels)
    for number, text in ((1, "missing_folder"), (2, "unknown"), (3, "broken spec")):
        meta = lessons_dir / f"{number:02d}-ex-{number}" / "lesson.yaml"
        assert_error_at(report, meta, line_of(meta, "exercise:"), text)


def test_a_spec_that_is_not_yaml_is_reported_not_a_crash(lessons_dir, tmp_path):
    kernels = tmp_path / "kernels"
    (kernels / "garbled").mkdir(parents=True)
    (kernels / "garbled" / "spec.yaml").write_text("id: [unclosed\n")
    good_lesson(lessons_dir, 1, "ex-1", exercise="garbled")
    meta = lessons_dir / "01-ex-1" / "lesson.yaml"
    assert_error_at(check(lessons_dir, kernels_dir=kernels), meta, line_of(meta, "exercise:"), "broken spec")


def test_real_exercise_is_known(lessons_dir):
    good_lesson(lessons_dir, 1, "with-gemm", exercise="gemm")
    assert check(lessons_dir).problems == []


def test_cuda_block_that_does_not_compile(lessons_dir):
    broken = KERNEL.replace("y[i] = x[i];", "y[i] = x[i] + undefined_name;")
    folder = good_lesson(lessons_dir, 1, "broken-code",
                         en=body(EN_SENTENCE, ["Idea", "Detail"], code=broken + "\n" + NOT_CPP_FRAGMENT),
                         ko=body(KO_SENTENCE, ["아이디어", "세부"], code=broken + "\n" + NOT_CPP_FRAGMENT))
    report = check(lessons_dir, compile_cuda=True)
    for lang in ("en", "ko"):
        path = folder / f"{lang}.md"
        fence = line_of(path, '```cuda title="Copy"')
        assert_error_at(report, path, fence, "does not compile", "undefined_name", f"at line {line_of(path, 'undefined_name')}")
    assert len(report.errors) == 2  # the fragments are not compiled...
    assert report.fragments == 2 and report.compiled == 2  # ...but counted


def test_short_published_lesson(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "short", en=body(EN_SENTENCE, ["Idea", "Detail"], repeat=30),
                         ko=body(KO_SENTENCE, ["아이디어", "세부"], repeat=30))
    assert_error_at(check(lessons_dir), folder / "en.md", 5, "854 words", "at least 900")


def test_short_draft_is_fine(lessons_dir):
    good_lesson(lessons_dir, 1, "short-draft", status="draft", en=body(EN_SENTENCE, ["Idea", "Detail"], repeat=3),
                ko=body(KO_SENTENCE, ["아이디어", "세부"], repeat=3))
    assert errors(check(lessons_dir)) == []


def test_korean_with_a_section_left_in_english(lessons_dir):
    ko_body = f"## 아이디어\n\n{KO_SENTENCE * 40}\n{KERNEL}\n## 세부\n\n{EN_SENTENCE * 40}\n" + SOURCES["ko"]
    folder = good_lesson(lessons_dir, 1, "half-translated", ko=ko_body)
    ko = folder / "ko.md"
    report = check(lessons_dir)
    assert_error_at(report, ko, line_of(ko, "## 세부"), "section '세부'", "untranslated")


def test_korean_much_shorter_than_english(lessons_dir):
    # Each section passes on its own (380+ >= 0.5 x 560) but the whole is short (782 < 0.8 x 1134).
    folder = good_lesson(lessons_dir, 1, "abridged", ko=body(KO_SENTENCE, ["아이디어", "세부"], repeat=10))
    report = check(lessons_dir)
    assert_error_at(report, folder / "ko.md", 5, "782 Hangul syllables", "1134 words")
    assert len(report.errors) == 1


def test_course_needs_eight_kernels(lessons_dir):
    for number in range(1, 4):
        good_lesson(lessons_dir, number, f"lesson-{number}")
    report = check(lessons_dir, min_kernels=8)
    assert_error_at(report, lessons_dir, 1, "hold 1 complete", "at least 8")  # the same kernel thrice counts once
    assert report.course_kernels == 1


def test_top_level_files_are_ignored(lessons_dir):
    good_lesson(lessons_dir, 1, "only")
    (lessons_dir / "AUTHORING.en.md").write_text("# Guide\n")
    (lessons_dir / "AUTHORING.ko.md").write_text("# 안내\n")
    assert check(lessons_dir).problems == []


def test_cli_prints_file_line_and_fails(lessons_dir, tmp_path):
    folder = good_lesson(lessons_dir, 1, "cli", en=body(EN_SENTENCE, ["Idea", "Detail"], extra="\n[x](ftp://a.org)\n"))
    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path / "data"))
    run = subprocess.run([sys.executable, "-m", "app", "lessons", "check", "--dir", str(lessons_dir)],
                         cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1
    en = folder / "en.md"
    assert f"{en}:{line_of(en, '[x](ftp')}: error: link ftp://a.org has a bad scheme" in run.stderr
    assert f"{lessons_dir}:1: error: the published lessons hold 1 complete" in run.stderr
    assert "1 complete cuda blocks compiled" not in run.stdout and "2 complete cuda blocks compiled" in run.stdout
