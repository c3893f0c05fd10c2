"""`lessons check` refuses what a review of the lessons found: typed speed numbers without a
source, internal jargon, English left in Korean code and figures, terms the glossary avoids, a
missing sources section, and exercise specs without correctness sizes for every alignment class.
Each test breaks one thing in an otherwise good lesson and expects the error at file:line."""
from __future__ import annotations

from pathlib import Path

from app.core.config import PROJECT_ROOT
from app.lessons import claims
from app.lessons.check import check_course
from app.templating import STATIC_DIR

from .kit import EN_SENTENCE, KO_SENTENCE, SOURCES, body, good_lesson, line_of

KERNELS = PROJECT_ROOT / "kernels"


def check(lessons_dir: Path):
    return check_course(lessons_dir, STATIC_DIR, KERNELS, compile_cuda=False, min_kernels=0)


def errors_at(report, path: Path, line: int) -> list[str]:
    prefix = f"{path}:{line}: error: "
    return [str(p) for p in report.errors if str(p).startswith(prefix)]


def with_paragraph(sentence: str, paragraph: str, headings: list[str]) -> str:
    return body(sentence, headings, extra="\n" + paragraph + "\n")


# ---- speed numbers ---------------------------------------------------------------------------
def test_a_typed_speed_number_without_a_source_fails(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "typed",
                         en=with_paragraph(EN_SENTENCE, "The tiled kernel ran at 9.1 TFLOP/s here.", ["Idea", "Detail"]))
    en = folder / "en.md"
    hits = errors_at(check(lessons_dir), en, line_of(en, "9.1 TFLOP/s"))
    assert hits and "9.1 TFLOP/s" in hits[0] and "#sources-and-further-reading" in hits[0]


def test_every_unit_of_speed_is_caught(lessons_dir):
    for claim in ["a copy moved 4.1 TB/s", "610 GB/s on one GPU", "it took 2.6 ms", "about 35 µs",
                  "103 GFLOP/s", "tiling gave 1.5× more"]:
        assert claims.speed_claims(f"## A\n\nOn that GPU {claim}.\n", 1, "en"), claim
    for fine in ["a 32×32 tile", "4096 × 4096 floats", "8×8 outputs", "0.25 FLOP/byte", "twice as fast"]:
        assert not claims.speed_claims(f"## A\n\nWe use {fine}.\n", 1, "en"), fine


def test_the_sources_marker_makes_a_number_legitimate(lessons_dir):
    paragraph = "On an RTX 4090 the tiled kernel ran at 3.8 TFLOP/s ([source](#sources-and-further-reading))."
    good_lesson(lessons_dir, 1, "cited", en=with_paragraph(EN_SENTENCE, paragraph, ["Idea", "Detail"]))
    assert check(lessons_dir).errors == []


def test_a_table_of_speeds_needs_the_marker_in_it_or_just_before_it(lessons_dir):
    table = "| Kernel | TFLOP/s |\n| --- | --- |\n| naive | 0.41 |\n"
    folder = good_lesson(lessons_dir, 1, "table", en=with_paragraph(EN_SENTENCE, "An RTX 4090:\n\n" + table, ["Idea", "Detail"]))
    en = folder / "en.md"
    assert errors_at(check(lessons_dir), en, line_of(en, "| Kernel | TFLOP/s |"))
    (lessons_dir / "01-table" / "en.md").write_text(en.read_text().replace(
        "An RTX 4090:", "An RTX 4090 ([source](#sources-and-further-reading)):"))
    assert check(lessons_dir).errors == []


def test_korean_marker_points_at_the_korean_sources_heading(lessons_dir):
    ko_text = with_paragraph(KO_SENTENCE, "그 GPU에서는 3.8 TFLOP/s였어요([출처](#sources-and-further-reading)).", ["아이디어", "세부"])
    folder = good_lesson(lessons_dir, 1, "ko-marker", ko=ko_text)
    ko = folder / "ko.md"
    assert errors_at(check(lessons_dir), ko, line_of(ko, "3.8 TFLOP/s"))


# ---- jargon, sources section -----------------------------------------------------------------
def test_seed_jargon_fails_in_both_languages(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "jargon",
                         en=with_paragraph(EN_SENTENCE, "The seed lesson says so.", ["Idea", "Detail"]),
                         ko=with_paragraph(KO_SENTENCE, "원본 레슨이 그렇게 말해요.", ["아이디어", "세부"]))
    report = check(lessons_dir)
    en, ko = folder / "en.md", folder / "ko.md"
    assert any("'seed'" in e for e in errors_at(report, en, line_of(en, "seed lesson")))
    assert any("원본 레슨" in e for e in errors_at(report, ko, line_of(ko, "원본 레슨")))


def test_a_published_lesson_needs_its_sources_section(lessons_dir):
    folder = good_lesson(lessons_dir, 1, "no-sources", en=body(EN_SENTENCE, ["Idea", "Detail"], sources=False))
    hits = errors_at(check(lessons_dir), folder / "en.md", 5)
    assert any("Sources and further reading" in e for e in hits)


# ---- Korean code text and figures ------------------------------------------------------------
CODE_EN = '```cpp title="Host side launch"\ndim3 grid(n);  // one block per row of the matrix\n```\n'


def test_english_left_in_korean_code_fails(lessons_dir):
    code_ko_untranslated = CODE_EN
    folder = good_lesson(lessons_dir, 1, "ko-code", en=body(EN_SENTENCE, ["Idea", "Detail"], extra="\n" + CODE_EN),
                         ko=body(KO_SENTENCE, ["아이디어", "세부"], extra="\n" + code_ko_untranslated))
    ko = folder / "ko.md"
    report = check(lessons_dir)
    assert any("code title" in e for e in errors_at(report, ko, line_of(ko, "Host side launch")))
    assert any("code comment" in e for e in errors_at(report, ko, line_of(ko, "one block per row")))
    translated = '```cpp title="호스트 쪽 launch"\ndim3 grid(n);  // 행렬의 row마다 block 하나\n```\n'
    (ko).write_text(ko.read_text().replace(code_ko_untranslated, translated))
    assert check(lessons_dir).errors == []


def test_figures_need_korean_alt_text_and_the_korean_svg(lessons_dir):
    image_en = "![A tile of C built from strips of A and B](/static/img/lessons/04-tiled-gemm.svg)"
    folder = good_lesson(lessons_dir, 1, "figure", en=body(EN_SENTENCE, ["Idea", "Detail"], extra="\n" + image_en + "\n"),
                         ko=body(KO_SENTENCE, ["아이디어", "세부"], extra="\n" + image_en + "\n"))
    ko = folder / "ko.md"
    hits = errors_at(check(lessons_dir), ko, line_of(ko, "04-tiled-gemm"))
    assert any("alt text" in e for e in hits) and any("04-tiled-gemm.ko.svg" in e for e in hits)
    ko.write_text(ko.read_text().replace(image_en, "![A와 B의 띠로 만든 C 타일](/static/img/lessons/04-tiled-gemm.ko.svg)"))
    assert check(lessons_dir).errors == []


# ---- glossary --------------------------------------------------------------------------------
def test_the_glossary_of_authoring_ko_is_enforced(lessons_dir):
    (lessons_dir / "AUTHORING.ko.md").write_text(
        "# 안내\n\n## 용어집\n\n| 쓸 말 | 피할 말 | 메모 |\n|---|---|---|\n| 커널 | kernel, 커넬 | |\n| 워프 | — | |\n",
        encoding="utf-8")
    folder = good_lesson(lessons_dir, 1, "glossary",
                         ko=with_paragraph(KO_SENTENCE, "이 kernel은 `kernel_name`을 불러요.", ["아이디어", "세부"]))
    ko = folder / "ko.md"
    hits = errors_at(check(lessons_dir), ko, line_of(ko, "이 kernel은"))
    assert len(hits) == 1 and "'커널'" in hits[0]  # the inline code `kernel_name` is not prose
    assert claims.load_glossary(lessons_dir / "AUTHORING.ko.md") == [("커널", ["kernel", "커넬"])]


def test_a_formal_speech_level_in_korean_prose_fails(lessons_dir):
    """Without any glossary: 셉니다 (the form a lesson once used) and 있습니다 are 합쇼체; 해요체
    passes, and so do the same words inside inline code and in the sources section."""
    paragraph = ("이를 부동소수점 연산으로 셉니다. 그리고 `셉니다`는 코드예요.\n\n"
                 "레지스터에 값이 있습니다.\n\n곱셈-덧셈은 FMA예요. 집에서 읽어요.")
    folder = good_lesson(lessons_dir, 1, "formal", ko=with_paragraph(KO_SENTENCE, paragraph, ["아이디어", "세부"]))
    ko = folder / "ko.md"
    report = check(lessons_dir)
    first = errors_at(report, ko, line_of(ko, "셉니다."))
    second = errors_at(report, ko, line_of(ko, "있습니다"))
    assert len(first) == 1 and "'셉니다'" in first[0] and "해요체" in first[0]
    assert len(second) == 1 and "'습니다'" in second[0]
    assert not errors_at(report, ko, line_of(ko, "집에서 읽어요"))
    assert sum("speech level" in str(p) for p in report.errors) == 2


def test_the_speech_level_check_reads_only_prose():
    body_ko = "첫 문단이에요.\n\n```text\n출력합니다\n```\n\n## 출처와 더 읽을거리\n\n- 「최적화합니다」 블로그 글이에요.\n"
    assert claims.speech_level_claims(body_ko, 1) == []
    assert [c.line for c in claims.speech_level_claims("해요.\n\n처리합니다.\n", 10)] == [12]


def test_the_real_glossary_has_entries():
    entries = dict(claims.load_glossary(PROJECT_ROOT / "lessons" / "AUTHORING.ko.md"))
    assert "kernel" in entries["커널"] and "연습문제" in entries["연습 문제"]


# ---- correctness sizes by alignment class ----------------------------------------------------
def test_size_classes_must_cover_every_class_with_a_real_size():
    sizes = [{"M": 1, "N": 1, "K": 1}, {"M": 17, "N": 17, "K": 17}, {"M": 129, "N": 129, "K": 129}]
    spec = {"sizes": {"correctness": sizes},
            "size_classes": {"one": sizes[0], "prime": sizes[1], "tile_plus_one": sizes[2],
                             "mod4": {"M": 100, "N": 260, "K": 68}, "mod8": sizes[1], "typo": sizes[0]}}
    problems = "\n".join(claims.size_class_claims(spec))
    assert "size_classes.mod4" in problems and "not one of sizes.correctness" in problems
    assert "size_classes.mod8" in problems and "does not have the property" in problems
    assert "size_classes.mod_tile is missing" in problems and "size_classes.tall_skinny is missing" in problems
    assert "size_classes.typo: unknown class" in problems
    assert claims.size_class_claims({"sizes": {"correctness": sizes}})[0].startswith("size_classes is missing")


def test_every_real_exercise_lists_its_size_classes():
    import yaml

    for spec in sorted(KERNELS.glob("*/spec.yaml")):
        assert claims.size_class_claims(yaml.safe_load(spec.read_text(encoding="utf-8"))) == [], spec


def test_the_sources_section_itself_may_hold_numbers(lessons_dir):
    sources = SOURCES["en"].rstrip("\n") + " Measured 610 GB/s on an RTX 4090.\n"
    good_lesson(lessons_dir, 1, "sources-numbers", en=body(EN_SENTENCE, ["Idea", "Detail"], sources=False) + sources)
    assert check(lessons_dir).errors == []
