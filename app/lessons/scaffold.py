"""``python -m app lessons new <slug>``: a new lesson folder with every convention shown once.

lessons/NN-slug/ gets a lesson.yaml (status: draft) and en.md + ko.md with front matter and
the same section skeleton, one complete ```cuda block and one ```cuda fragment, so the two
languages start equal. Its paragraphs are placeholders (``placeholders``): ``lessons check``
fails while one is left, so a skeleton is never published as it is. Nothing is written unless
all of it can be.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TypedDict

from app.lessons.catalog import FOLDER_PATTERN
from app.lessons.schema import SLUG_PATTERN

MAX_SLUG = 80


class ScaffoldError(Exception):
    """A reason not to scaffold, meant for the author's terminal."""


def _existing(lessons_dir: Path) -> list[tuple[int, str, Path]]:
    found = []
    if lessons_dir.is_dir():
        for folder in lessons_dir.iterdir():
            match = FOLDER_PATTERN.match(folder.name)
            if folder.is_dir() and match:
                found.append((int(match.group(1)), match.group(2), folder))
    return sorted(found)


def _exercise_declaration(exercise: str, kernels_dir: Path) -> str:
    from kernels.engine import ExerciseSpecError, UnknownExercise, list_exercises, load_exercise

    try:
        return load_exercise(exercise, root=kernels_dir).kernel.declaration()
    except UnknownExercise:
        known = ", ".join(list_exercises(kernels_dir)) or "none"
        raise ScaffoldError(f"unknown exercise '{exercise}': there is no kernels/{exercise}/spec.yaml "
                            f"(known exercises: {known})") from None
    except ExerciseSpecError as exc:
        raise ScaffoldError(f"exercise '{exercise}' has a broken spec.yaml: {exc}") from None


def _title(slug: str) -> str:
    return slug.replace("-", " ").capitalize()


# The example kernel is the same code in both languages; only its comments are translated.
_KERNEL = '''extern "C" __global__ void scale(float* x, float a, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;  // {comment}
    if (i < n) x[i] *= a;
}}'''

class _Skeleton(TypedDict):
    """One language's paragraphs of a new lesson's skeleton."""
    summary: str
    sections: list[tuple[str, str]]  # (heading, paragraph)
    comment: str
    fragment_title: str
    kernel_title: str
    exercise_heading: str
    exercise: str
    exercise_more: str
    note: str


_TEXT: dict[str, _Skeleton] = {
    "en": {
        "summary": "One or two sentences: what the reader will be able to do after this lesson.",
        "sections": [
            ("The idea", "Open with the one idea this lesson is about, in plain words, before any code."),
            ("The concepts", "Explain the concepts one at a time. Use a table where numbers are compared, "
                             "and name the GPU and the source of every number."),
            ("Code", "Every code block has a language and a title. A complete `cuda` block compiles on its "
                     "own; mark an excerpt `cuda fragment`."),
        ],
        "comment": "one thread per element",
        "fragment_title": "Only the index computation",
        "kernel_title": "Scale a vector — one thread per element",
        "exercise_heading": "Exercise",
        "exercise": "Write the kernel with exactly this signature:",
        "exercise_more": "Say what each thread computes, how the launch is configured, how the kernel is graded "
                         "and what speedup to aim for on this server.",
        "note": "Replace every paragraph of this skeleton; `python -m app lessons check` tells you what is missing.",
    },
    "ko": {
        "summary": "한두 문장: 이 레슨을 마치면 독자가 무엇을 할 수 있게 되는지.",
        "sections": [
            ("핵심 아이디어", "코드보다 먼저, 이 레슨이 다루는 하나의 아이디어를 쉬운 말로 소개하세요."),
            ("개념", "개념을 하나씩 설명하세요. 숫자를 비교할 때는 표를 쓰고, 모든 숫자에 GPU와 출처를 밝히세요."),
            ("코드", "모든 코드 블록에는 언어와 제목이 있어요. 완전한 `cuda` 블록은 그 자체로 컴파일되어야 하고, "
                     "일부만 보여 줄 때는 `cuda fragment`로 표시하세요."),
        ],
        "comment": "원소 하나당 스레드 하나",
        "fragment_title": "인덱스 계산 부분만",
        "kernel_title": "벡터 배율 조정 — 원소 하나당 스레드 하나",
        "exercise_heading": "연습 문제",
        "exercise": "정확히 다음 시그니처로 커널을 작성하세요:",
        "exercise_more": "각 스레드가 무엇을 계산하는지, 실행 구성은 어떻게 되는지, 어떻게 채점되는지, "
                         "이 서버에서 목표로 할 속도 향상은 얼마인지 적으세요.",
        "note": "이 뼈대의 모든 문단을 바꿔 쓰세요. 무엇이 빠졌는지는 `python -m app lessons check`가 알려 줘요.",
    },
}


KOREAN_TITLE_MARK = "(번역할 제목)"


def placeholders(lang: str) -> list[str]:
    """The skeleton's paragraphs in ``lang``: text that must not be left in a lesson."""
    t = _TEXT.get(lang)
    if t is None:
        return []
    out = [t["summary"], t["note"], t["exercise_more"], *(paragraph for _, paragraph in t["sections"])]
    return out + ([KOREAN_TITLE_MARK] if lang == "ko" else [])


def _markdown(lang: str, slug: str, exercise: str | None, declaration: str | None) -> str:
    t = _TEXT[lang]
    title = _title(slug) if lang == "en" else f"{_title(slug)} {KOREAN_TITLE_MARK}"
    # JSON strings are valid YAML and survive colons in the text.
    out = ["---", f"title: {json.dumps(title, ensure_ascii=False)}",
           f"summary: {json.dumps(t['summary'], ensure_ascii=False)}", "---", ""]
    for heading, paragraph in t["sections"]:
        out += [f"## {heading}", "", paragraph, ""]
    out += [
        f'```cuda title="{t["kernel_title"]}"', _KERNEL.format(comment=t["comment"]), "```", "",
        f'```cuda fragment title="{t["fragment_title"]}"',
        "int i = blockIdx.x * blockDim.x + threadIdx.x;", "```", "",
        "::: note", t["note"], ":::", "",
    ]
    if exercise:
        out += [f"## {t['exercise_heading']}", "", "::: exercise", t["exercise"], "",
                f'```cpp title="{exercise}"', f"{declaration};", "```", "",
                t["exercise_more"], ":::", "", f"::: measured {exercise}", ":::", ""]
    return "\n".join(out)


def _lesson_yaml(order: int, slug: str, exercise: str | None) -> str:
    return (
        "# Written by `python -m app lessons new`; see lessons/AUTHORING.en.md (한국어: AUTHORING.ko.md).\n"
        f"order: {order}\n"
        f"slug: {slug}\n"
        "status: draft            # draft: only instructors see it; publish once `python -m app lessons check` passes\n"
        "tags: []\n"
        f"exercise: {exercise or 'null'}\n"
        "xp: 20\n"
        "links: []                # - url: https://docs.nvidia.com/cuda/...\n"
        "                         #   title: {en: \"English title\", ko: \"한국어 제목\"}\n"
    )


def scaffold_lesson(lessons_dir: Path, slug: str, *, kernels_dir: Path, order: int | None = None,
                    exercise: str | None = None) -> Path:
    """Create lessons_dir/NN-slug/ and return it; ScaffoldError (and nothing written) if not allowed."""
    if len(slug) > MAX_SLUG or not re.match(SLUG_PATTERN, slug):
        raise ScaffoldError(f"bad slug '{slug}': use lowercase letters, digits and single hyphens "
                            f"(e.g. shared-memory-tiling), at most {MAX_SLUG} characters")
    existing = _existing(lessons_dir)
    for _number, other_slug, folder in existing:
        if other_slug == slug:
            raise ScaffoldError(f"a lesson with slug '{slug}' already exists: {folder}")
    used = {number: folder for number, _, folder in existing}
    if order is None:
        order = max(used, default=0) + 1
    if not 1 <= order <= 99:
        raise ScaffoldError(f"order {order} is out of range: lessons are numbered 1 to 99")
    if order in used:
        raise ScaffoldError(f"order {order} is taken by {used[order]}; pick another with --order")
    declaration = _exercise_declaration(exercise, kernels_dir) if exercise else None
    folder = lessons_dir / f"{order:02d}-{slug}"
    if folder.exists():
        raise ScaffoldError(f"{folder} already exists")
    files = {"lesson.yaml": _lesson_yaml(order, slug, exercise),
             "en.md": _markdown("en", slug, exercise, declaration),
             "ko.md": _markdown("ko", slug, exercise, declaration)}
    folder.mkdir(parents=True)
    for name, content in files.items():
        (folder / name).write_text(content, encoding="utf-8")
    return folder
