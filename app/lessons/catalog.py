"""Scan lessons/NN-slug/ folders, validate them, and keep the result fresh.

A broken lesson never takes the site down: its problems are collected (file, line,
message) and the lesson — or only the broken language — is left out. The catalog re-reads
the folder when a lesson file changes (app/core/filecache.py; checked at most once per
``check_interval``).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from app.core.config import LANGUAGES
from app.core.filecache import FileCache, listing
from app.i18n import gettext_for
from app.lessons.said import Said, _, in_language
from app.lessons.schema import FrontMatter, LessonMeta
from app.lessons.yamlpos import YamlError, line_of, load_with_nodes

FOLDER_PATTERN = re.compile(r"^(\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)$")
HEADING = re.compile(r"^(#{2,6})\s", re.MULTILINE)
FENCE = re.compile(r"^```[a-z]", re.MULTILINE)
IMAGE = re.compile(r"!\[[^\]]*\]\((/static/img/lessons/[^)\s]+)\)")
WORDS_PER_MINUTE = 200


@dataclass(frozen=True)
class Problem:
    file: Path
    line: int
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.severity}: {self.message}"


@dataclass
class LessonText:
    """One language version of a lesson: front matter plus the markdown body."""

    lang: str
    path: Path
    title: str
    summary: str
    body: str
    body_line: int  # 1-based line in the file where the body starts
    _rendered: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def word_count(self) -> int:
        return len(self.body.split())


@dataclass
class Lesson:
    folder: Path
    meta: LessonMeta
    texts: dict[str, LessonText]
    # set to published but failing: what keeps it a draft (shown to instructors on its page)
    held_back: list[Problem] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return self.meta.slug

    @property
    def order(self) -> int:
        return self.meta.order

    @property
    def number(self) -> str:
        return f"{self.meta.order:02d}"

    @property
    def published(self) -> bool:
        return self.meta.status == "published" and not self.held_back

    @property
    def minutes(self) -> int:
        if self.meta.minutes:
            return self.meta.minutes
        words = max(t.word_count for t in self.texts.values())
        return max(1, round(words / WORDS_PER_MINUTE))

    def reasons(self, lang: str) -> list[str]:
        """Why it is held back, as instructors read it: file:line: the message in ``lang``."""
        gettext = gettext_for(lang)
        return [f"{p.file.name}:{p.line}: {in_language(p.message, gettext)}" for p in self.held_back]

    def text(self, lang: str) -> tuple[LessonText, bool]:
        """The text in ``lang``, else the other language; the flag says it is a fallback."""
        if lang in self.texts:
            return self.texts[lang], False
        for other in LANGUAGES:
            if other in self.texts:
                return self.texts[other], True
        raise LookupError(self.slug)  # a Lesson is never built without a text


@dataclass(eq=False)  # compared by identity: a new snapshot means files changed
class Snapshot:
    lessons: list[Lesson]  # every valid lesson, drafts included, by order
    problems: list[Problem]

    def __post_init__(self) -> None:
        self._by_slug = {lesson.slug: lesson for lesson in self.lessons}

    def get(self, slug: str) -> Lesson | None:
        return self._by_slug.get(slug)

    def visible(self, show_drafts: bool = False) -> list[Lesson]:
        return [lesson for lesson in self.lessons if lesson.published or show_drafts]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def _pydantic_problems(path: Path, exc: ValidationError, node: yaml.Node | None, line_offset: int = 0) -> list[Problem]:
    problems = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        where = ".".join(str(part) for part in loc) or "(top level)"
        if err["type"] == "missing":
            message = f"missing required field '{where}'"
        else:
            message = f"{where}: {err['msg']}"
        problems.append(Problem(path, line_of(node, loc) + line_offset, message))
    return problems


def _load_meta(path: Path) -> tuple[LessonMeta | None, list[Problem], object]:
    if not path.is_file():
        return None, [Problem(path, 1, Said(_("lesson.yaml is missing")))], None
    try:
        data, node = load_with_nodes(path.read_text(encoding="utf-8"))
    except YamlError as exc:
        return None, [Problem(path, exc.line, exc.message)], None
    except UnicodeDecodeError:
        return None, [Problem(path, 1, Said(_("file is not UTF-8")))], None
    if not isinstance(data, dict):
        return None, [Problem(path, 1, Said(_("lesson.yaml must be a mapping of fields")))], None
    try:
        return LessonMeta.model_validate(data), [], node
    except ValidationError as exc:
        return None, _pydantic_problems(path, exc, node), node


def _load_text(path: Path, lang: str) -> tuple[LessonText | None, list[Problem]]:
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None, [Problem(path, 1, Said(_("file is not UTF-8")))]
    lines = raw.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, [Problem(path, 1, Said(_("front matter missing: the file must start with a '---' line")))]
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return None, [Problem(path, 1, Said(_("front matter is not closed by a '---' line")))]
    front = "".join(lines[1:end])
    try:
        data, node = load_with_nodes(front)
    except YamlError as exc:
        return None, [Problem(path, exc.line + 1, exc.message)]
    if not isinstance(data, dict):
        return None, [Problem(path, 2, Said(_("front matter must be a mapping (title:, summary:)")))]
    try:
        fm = FrontMatter.model_validate(data)
    except ValidationError as exc:
        # +1: the front matter starts on line 2 of the file.
        return None, _pydantic_problems(path, exc, node, line_offset=1)
    body = "".join(lines[end + 1:])
    return LessonText(lang, path, fm.title.strip(), fm.summary.strip(), body, end + 2), []


def _cross_checks(lesson: Lesson, meta_path: Path, meta_node: yaml.Node | None, static_dir: Path,
                  kernels_dir: Path) -> list[Problem]:
    """Warnings: the two languages should mirror each other; referenced files should exist."""
    problems: list[Problem] = []
    texts = list(lesson.texts.values())
    if len(texts) == 2:
        a, b = texts
        for message, pattern in ((_("%(here)s ## headings here but %(there)s in %(file)s"), HEADING),
                                 (_("%(here)s code blocks here but %(there)s in %(file)s"), FENCE)):
            na, nb = len(pattern.findall(a.body)), len(pattern.findall(b.body))
            if na != nb:
                problems.append(Problem(b.path, b.body_line, Said(message, here=nb, there=na, file=a.path.name), "warning"))
    for text in texts:
        for match in IMAGE.finditer(text.body):
            rel = match.group(1)[len("/static/"):]
            if not (static_dir / rel).is_file():
                line = text.body_line + text.body[: match.start()].count("\n")
                problems.append(Problem(text.path, line, Said(_("image %(url)s not found"), url=match.group(1)), "warning"))
    if lesson.meta.exercise and not (kernels_dir / lesson.meta.exercise).is_dir():
        problems.append(Problem(meta_path, line_of(meta_node, ("exercise",)),
                                Said(_("exercise '%(id)s' has no kernels/%(id)s/ folder"), id=lesson.meta.exercise), "warning"))
    return problems


def load_catalog(lessons_dir: Path, static_dir: Path, kernels_dir: Path) -> Snapshot:
    lessons: list[Lesson] = []
    problems: list[Problem] = []
    folders = sorted(p for p in lessons_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))) if lessons_dir.is_dir() else []
    for folder in folders:
        match = FOLDER_PATTERN.match(folder.name)
        if not match:
            problems.append(Problem(folder, 1, Said(_("folder name must look like NN-slug (e.g. 04-naive-vs-tiled-gemm)"))))
            continue
        meta_path = folder / "lesson.yaml"
        meta, meta_problems, node = _load_meta(meta_path)
        problems += meta_problems
        if meta is None:
            continue
        if meta.slug != match.group(2):
            problems.append(Problem(meta_path, line_of(node, ("slug",)),
                                    Said(_("slug '%(slug)s' must equal the folder name without NN- ('%(folder)s')"),
                                         slug=meta.slug, folder=match.group(2))))
            continue
        if meta.order != int(match.group(1)):
            problems.append(Problem(meta_path, line_of(node, ("order",)),
                                    Said(_("order %(order)s must equal the folder number %(number)s"),
                                         order=meta.order, number=match.group(1))))
            continue
        texts: dict[str, LessonText] = {}
        for lang in LANGUAGES:
            path = folder / f"{lang}.md"
            if not path.is_file():
                problems.append(Problem(path, 1, Said(_("no %(lang)s.md: readers of this language get the other language"), lang=lang),
                                        "warning"))
                continue
            text, text_problems = _load_text(path, lang)
            problems += text_problems
            if text is not None:
                texts[lang] = text
        if not texts:
            problems.append(Problem(folder, 1, Said(_("no readable ko.md or en.md: lesson left out"))))
            continue
        lesson = Lesson(folder, meta, texts)
        problems += _cross_checks(lesson, meta_path, node, static_dir, kernels_dir)
        lessons.append(lesson)
    # Orders and slugs identify lessons: a duplicate keeps the first and reports the rest.
    seen: dict[int, Lesson] = {}
    unique: list[Lesson] = []
    for lesson in sorted(lessons, key=lambda each: (each.order, each.folder.name)):
        if lesson.order in seen:
            problems.append(Problem(lesson.folder / "lesson.yaml", 1,
                                    Said(_("order %(order)s is also used by %(folder)s"), order=lesson.order,
                                         folder=seen[lesson.order].folder.name)))
            continue
        seen[lesson.order] = lesson
        unique.append(lesson)
    for lesson in unique:
        if lesson.meta.status == "published":
            lesson.held_back = [p for p in problems if _holds_back(p, lesson)]
    return Snapshot(unique, problems)


# Catalog warnings that `lessons check` counts as errors and that a reader would see broken.
_BROKEN_FOR_READERS = ("not found", "has no kernels/")


def _holds_back(problem: Problem, lesson: Lesson) -> bool:
    """A problem in one of the lesson's files that keeps a published lesson a draft: an error, or a
    missing image or exercise (the page would show them broken). A missing language does not: the
    other language is shown with a note."""
    if lesson.folder not in (problem.file, *problem.file.parents):
        return False
    return problem.severity == "error" or any(marker in problem.message for marker in _BROKEN_FOR_READERS)


class Catalog:
    """The current Snapshot, loaded again when a lesson file changes (app/core/filecache.py): the
    lessons folder, each entry in it and each lesson folder's lesson.yaml, ko.md and en.md are
    checked at most once per ``check_interval`` seconds."""

    def __init__(self, lessons_dir: Path, static_dir: Path, kernels_dir: Path, check_interval: float = 1.0,
                 loader: Callable[[Path, Path, Path], Snapshot] | None = None):
        """``loader``: how a snapshot is read (app/lessons/gate.py's load_checked_catalog also holds
        back published lessons that fail ``lessons check``); load_catalog when not given."""
        self.lessons_dir = lessons_dir
        self.static_dir = static_dir
        self.kernels_dir = kernels_dir
        load = loader or load_catalog
        self._files: FileCache[None, Snapshot] = FileCache(
            lambda _key: self._watched(),
            lambda _key: load(self.lessons_dir, self.static_dir, self.kernels_dir),
            recheck_s=check_interval)

    def _watched(self) -> list[Path]:
        paths = []
        for entry in listing(self.lessons_dir):
            paths.append(entry)
            if entry != self.lessons_dir and entry.is_dir():
                paths += [entry / name for name in ("lesson.yaml", "ko.md", "en.md")]
        return paths

    def snapshot(self) -> Snapshot:
        return self._files.get(None)
