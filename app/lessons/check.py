"""``python -m app lessons check``: everything that must hold before a lesson ships.

Fails (errors, each at file:line) when
- lesson.yaml or the front matter breaks the schema (reported by the catalog loader);
- a language is missing, or the two languages differ in their number of headings or code blocks;
- a link is malformed, or points at an unknown lesson or a missing static file;
- the exercise is unknown (kernels/<id>/spec.yaml, loaded by the grading engine);
- a complete ```cuda block does not compile with the engine's NVRTC compile (no GPU needed);
- a published lesson has fewer than MIN_ENGLISH_WORDS words of English prose (code excluded),
  or its Korean is not equal to its English (see KO_* below);
- the published lessons hold fewer than MIN_COURSE_KERNELS complete kernels;
- claims (app/lessons/claims.py): a speed number typed in prose without a citation marker, the
  word "seed" (or 원본 레슨), a ko.md code title/comment/alt text without Hangul where en.md has
  words, a Korean form the glossary of AUTHORING.ko.md avoids, a published lesson without its
  sources section, an exercise spec without correctness sizes for every alignment class.
```cuda fragment blocks are counted and reported, never compiled.

"Korean equal to English" is measured, since words do not translate one to one. Over the five
lessons as first written, a complete translation had 1.23–1.39 Hangul syllables per English
word, and no ## section fell below 0.96 (technical terms — warp, __syncthreads, GEMM — stay in
Latin letters and count for nothing). KO_HANGUL_PER_EN_WORD = 0.8 leaves room for term-heavy
prose yet fails a translation missing about a third of its text; KO_SECTION_HANGUL_PER_EN_WORD =
0.5, applied to every section of at least KO_SECTION_MIN_WORDS English words, fails a section
left in English or cut to a summary. Same section count is the heading check.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from app.lessons import claims
from app.lessons.catalog import IMAGE, Lesson, Problem, load_catalog
from app.lessons.codecheck import CompilerUnavailable, check_lesson_code, code_blocks, normalized
from app.lessons.links import body_links, judge
from app.lessons.prose import Structure, structure
from app.lessons.said import Said, _
from app.lessons.scaffold import placeholders
from app.lessons.yamlpos import YamlError, line_of, load_with_nodes

MIN_ENGLISH_WORDS = 900
MIN_COURSE_KERNELS = 8
KO_HANGUL_PER_EN_WORD = 0.8
KO_SECTION_HANGUL_PER_EN_WORD = 0.5
KO_SECTION_MIN_WORDS = 40

# Catalog warnings that the check reports itself, more precisely (first unmatched heading/block).
_REPLACED_CATALOG_WARNINGS = ("## headings here but", "code blocks here but")


@dataclass
class CheckReport:
    lessons: list[Lesson]
    problems: list[Problem] = field(default_factory=list)
    compiled: int = 0  # complete cuda blocks compiled (both languages)
    fragments: int = 0  # cuda fragment blocks seen (both languages), not compiled
    course_kernels: int = 0  # distinct complete cuda blocks in published lessons
    english_words: dict[str, int] = field(default_factory=dict)  # slug -> prose words

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity != "error"]

    def summary(self) -> str:
        published = sum(1 for lesson in self.lessons if lesson.published)
        words = ", ".join(f"{slug} {n}" for slug, n in self.english_words.items())
        return "\n".join([
            f"{len(self.lessons)} lessons loaded ({published} published, {len(self.lessons) - published} drafts), "
            f"{len(self.errors)} errors, {len(self.warnings)} warnings",
            f"code: {self.compiled} complete cuda blocks compiled, {self.fragments} cuda fragments (not compiled); "
            f"{self.course_kernels} complete kernels in published lessons",
            f"English prose words: {words or '-'}",
        ])


def _promote(problem: Problem) -> Problem:
    return Problem(problem.file, problem.line, problem.message, "error")


def _compare_structure(lesson: Lesson, parts: dict[str, Structure]) -> list[Problem]:
    """Headings and code blocks: same number in both languages; point at the first extra one."""
    problems = []
    ko, en = parts["ko"], parts["en"]
    for message, a, b in ((_("%(longer)s.md has %(n)s headings, %(shorter)s.md has %(m)s: this one and any after it "
                             "have no counterpart"), en.headings, ko.headings),
                          (_("%(longer)s.md has %(n)s code blocks, %(shorter)s.md has %(m)s: this one and any after "
                             "it have no counterpart"), en.code_lines, ko.code_lines)):
        if len(a) == len(b):
            continue
        longer, shorter = ("en", "ko") if len(a) > len(b) else ("ko", "en")
        items = a if longer == "en" else b
        extra = items[min(len(a), len(b))]
        line = extra[1] if isinstance(extra, tuple) else extra
        problems.append(Problem(lesson.texts[longer].path, line,
                                Said(message, longer=longer, n=len(items), shorter=shorter, m=min(len(a), len(b)))))
    return problems


def _equal_korean(lesson: Lesson, parts: dict[str, Structure]) -> list[Problem]:
    en, ko = parts["en"], parts["ko"]
    ko_path = lesson.texts["ko"].path
    problems = []
    need = KO_HANGUL_PER_EN_WORD * en.words
    if ko.hangul < need:
        problems.append(Problem(ko_path, lesson.texts["ko"].body_line,
                                Said(_("Korean body has %(hangul)s Hangul syllables, fewer than %(per)s per English "
                                       "word (%(words)s words → %(need)s): translate the whole lesson"),
                                     hangul=ko.hangul, per=KO_HANGUL_PER_EN_WORD, words=en.words, need=f"{need:.0f}")))
    if len(en.sections) == len(ko.sections):
        for e, k in zip(en.sections, ko.sections, strict=False):  # a count mismatch is reported apart
            if e.words >= KO_SECTION_MIN_WORDS and k.hangul < KO_SECTION_HANGUL_PER_EN_WORD * e.words:
                problems.append(Problem(ko_path, k.line,
                                        Said(_("section '%(title)s' has %(hangul)s Hangul syllables for %(words)s "
                                               "English words: it looks untranslated or cut short"),
                                             title=k.title or "(before the first ##)", hangul=k.hangul, words=e.words)))
    return problems


def _check_claims(lesson: Lesson, glossary: list[tuple[str, list[str]]], static_dir: Path) -> list[Problem]:
    problems = []
    for lang, text in lesson.texts.items():
        found = claims.speed_claims(text.body, text.body_line, lang) + claims.jargon(text.body, text.body_line)
        if lang == "ko":
            found += claims.glossary_claims(text.body, text.body_line, glossary)
            found += claims.speech_level_claims(text.body, text.body_line)
        problems += [Problem(text.path, c.line, c.message) for c in found]
        if lesson.published and not claims.sources_section(text.body, lang):
            problems.append(Problem(text.path, text.body_line,
                                    Said(_("no '## %(heading)s' section: name every source by title, author or site "
                                           "and link, with its caveats"), heading=claims.SOURCES_HEADING[lang])))
    if {"en", "ko"} <= set(lesson.texts):
        en, ko = lesson.texts["en"], lesson.texts["ko"]
        problems += [Problem(ko.path, c.line, c.message)
                     for c in claims.korean_code_text(en.body, en.body_line, ko.body, ko.body_line)
                     + claims.korean_figures(en.body, ko.body, ko.body_line, static_dir)]
    return problems


def _check_size_classes(kernels_dir: Path, exercises: set[str]) -> list[Problem]:
    problems = []
    for exercise in sorted(exercises):
        path = kernels_dir / exercise / "spec.yaml"
        try:  # parsed here only for the lines of its claims; the engine validates it (_check_exercise)
            raw, node = load_with_nodes(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, YamlError):
            continue
        if isinstance(raw, dict):
            line = line_of(node, ("size_classes",)) if "size_classes" in raw else line_of(node, ("sizes",))
            problems += [Problem(path, line, message) for message in claims.size_class_claims(raw)]
    return problems


def _yaml_node(path: Path) -> yaml.Node | None:
    try:
        return load_with_nodes(path.read_text(encoding="utf-8"))[1]
    except (OSError, UnicodeDecodeError, YamlError):
        return None


def _check_exercise(lesson: Lesson, kernels_dir: Path) -> list[Problem]:
    exercise = lesson.meta.exercise
    if not exercise or not (kernels_dir / exercise).is_dir():
        return []  # no exercise, or no folder: the catalog already reported the latter
    from kernels.engine import ExerciseSpecError, UnknownExercise, load_exercise

    meta_path = lesson.folder / "lesson.yaml"
    try:
        load_exercise(exercise, root=kernels_dir)
    except UnknownExercise:
        return [Problem(meta_path, line_of(_yaml_node(meta_path), ("exercise",)),
                        Said(_("exercise '%(id)s' is unknown: kernels/%(id)s/spec.yaml is missing"), id=exercise))]
    except ExerciseSpecError as exc:
        return [Problem(meta_path, line_of(_yaml_node(meta_path), ("exercise",)),
                        Said(_("exercise '%(id)s' has a broken spec: %(error)s"), id=exercise, error=str(exc)))]
    return []


def _check_links(lesson: Lesson, static_dir: Path, slugs: dict[str, bool]) -> list[Problem]:
    problems = []
    for text in lesson.texts.values():
        for ref in body_links(text.body, text.body_line):
            if ref.image and IMAGE.fullmatch(f"![]({ref.target})"):
                continue  # a /static/img/lessons/ image: the catalog already checks that it exists
            verdict = judge(ref.target, image=ref.image, static_dir=static_dir, slugs=slugs)
            if verdict:
                problems.append(Problem(text.path, ref.line, verdict.message, verdict.severity))
    meta_path = lesson.folder / "lesson.yaml"
    node = _yaml_node(meta_path)
    for i, link in enumerate(lesson.meta.links):
        raw = _raw_yaml_url(node, i) or str(link.url)
        verdict = judge(raw, image=False, static_dir=static_dir, slugs=slugs, external_only=True)
        if verdict:
            problems.append(Problem(meta_path, line_of(node, ("links", i, "url")), verdict.message, verdict.severity))
    return problems


def _raw_yaml_url(node: yaml.Node | None, index: int) -> str | None:
    """The url as written in lesson.yaml (pydantic has already percent-encoded spaces)."""
    if node is None:
        return None
    try:
        for key, value in node.value:
            if key.value == "links" and isinstance(value, yaml.SequenceNode):
                for k, v in value.value[index].value:
                    if k.value == "url":
                        return str(v.value)
    except (AttributeError, IndexError, TypeError, ValueError):
        return None
    return None


def _check_placeholders(lesson: Lesson) -> list[Problem]:
    """Paragraphs of the ``lessons new`` skeleton still in the text: the lesson is not written yet."""
    problems = []
    for lang, text in lesson.texts.items():
        whole = text.path.read_text(encoding="utf-8") if text.path.is_file() else text.body
        for placeholder in placeholders(lang):
            at = whole.find(placeholder)
            if at >= 0:
                shown = placeholder if len(placeholder) <= 60 else placeholder[:57] + "..."
                problems.append(Problem(text.path, whole.count("\n", 0, at) + 1,
                                        Said(_("the skeleton's placeholder is still here: \"%(text)s\"; write the lesson's "
                                               "own text"), text=shown)))
    return problems


def check_course(lessons_dir: Path, static_dir: Path, kernels_dir: Path, *, compile_cuda: bool = True,
                 min_words: int = MIN_ENGLISH_WORDS, min_kernels: int = MIN_COURSE_KERNELS) -> CheckReport:
    snapshot = load_catalog(lessons_dir, static_dir, kernels_dir)
    report = CheckReport(snapshot.lessons)
    for problem in snapshot.problems:
        if problem.severity == "error":
            report.problems.append(problem)
        elif not any(marker in problem.message for marker in _REPLACED_CATALOG_WARNINGS):
            # Missing language, missing image, missing exercise folder: warnings for the
            # site (it still serves), errors for the check.
            report.problems.append(_promote(problem))
    slugs = {lesson.slug: lesson.published for lesson in snapshot.lessons}
    kernels: set[str] = set()
    glossary = claims.load_glossary(lessons_dir / "AUTHORING.ko.md")
    exercises: set[str] = set()
    for lesson in snapshot.lessons:
        report.problems += _check_claims(lesson, glossary, static_dir)
        report.problems += _check_placeholders(lesson)
        if lesson.meta.exercise and (kernels_dir / lesson.meta.exercise / "spec.yaml").is_file():
            exercises.add(lesson.meta.exercise)
        parts = {lang: structure(t.body, t.body_line) for lang, t in lesson.texts.items()}
        if set(parts) == {"ko", "en"}:
            report.problems += _compare_structure(lesson, parts)
        report.problems += _check_exercise(lesson, kernels_dir)
        report.problems += _check_links(lesson, static_dir, slugs)
        for lang, text in lesson.texts.items():
            for block in code_blocks(text.body, text.body_line):
                if block.language == "cuda" and block.fragment:
                    report.fragments += 1
                elif block.language == "cuda":
                    if compile_cuda:
                        report.compiled += 1
                    if lesson.published and lang == "en":
                        kernels.add(normalized(block.code))
        if compile_cuda:
            try:
                report.problems += check_lesson_code(lesson)
            except CompilerUnavailable as exc:
                report.problems.append(Problem(lesson.folder, 1, Said(_("the engine cannot compile here, so cuda blocks "
                                                                        "were not compiled: %(error)s"), error=str(exc)),
                                               "warning"))
                compile_cuda, report.compiled = False, 0
        else:
            report.problems += check_lesson_code(lesson, compile_cuda=False)
        if lesson.published and "en" in parts:
            report.english_words[lesson.slug] = parts["en"].words
            if parts["en"].words < min_words:
                report.problems.append(Problem(lesson.texts["en"].path, lesson.texts["en"].body_line,
                                               Said(_("English body has %(words)s words of prose (code excluded); a "
                                                      "published lesson needs at least %(least)s"),
                                                    words=parts["en"].words, least=min_words)))
            if "ko" in parts:
                report.problems += _equal_korean(lesson, parts)
    report.problems += _check_size_classes(kernels_dir, exercises)
    report.course_kernels = len(kernels)
    if report.course_kernels < min_kernels:
        report.problems.append(Problem(lessons_dir, 1, Said(_("the published lessons hold %(n)s complete ```cuda "
                                                              "kernels; the course needs at least %(least)s"),
                                                            n=report.course_kernels, least=min_kernels)))
    return report
