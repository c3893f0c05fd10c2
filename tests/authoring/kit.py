"""Build lesson folders that pass every check, so each test can break exactly one thing."""
from __future__ import annotations

import textwrap
from pathlib import Path

EN_SENTENCE = "Threads of one warp read neighbouring floats so the memory system serves them together. "
KO_SENTENCE = "한 워프의 스레드들이 이웃한 실수를 읽으면 메모리 시스템이 그 요청을 한꺼번에 처리해 줘요. "

KERNEL = textwrap.dedent('''\
    ```cuda title="Copy"
    extern "C" __global__ void copy(const float* x, float* y, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = x[i];
    }
    ```
    ''')

FRAGMENT = '```cuda fragment title="Excerpt"\nacc += a[k] * b[k];\n```\n'


# Every published lesson ends with its sources section (app/lessons/claims.py).
SOURCES = {"en": "\n## Sources and further reading\n\n- **A named source**, its author: <https://docs.nvidia.com/cuda/>.\n",
           "ko": "\n## 출처와 더 읽을거리\n\n- **이름 있는 자료**, 저자: <https://docs.nvidia.com/cuda/>.\n"}


def body(sentence: str, headings: list[str], repeat: int = 40, code: str = KERNEL, extra: str = "",
         sources: bool = True) -> str:
    """Sections of ``repeat`` sentences each (14 words per English sentence: 40 → 560 words),
    then the sources section (English or Korean, after the sentence's language)."""
    parts = []
    for i, heading in enumerate(headings):
        parts.append(f"## {heading}\n\n{sentence * repeat}\n")
        if i == 0:
            parts.append(code)
    tail = SOURCES["ko" if sentence == KO_SENTENCE else "en"] if sources else ""
    return "\n".join(parts) + extra + tail


def write_text(folder: Path, lang: str, text_body: str, title: str = "Title") -> Path:
    path = folder / f"{lang}.md"
    path.write_text(f"---\ntitle: {title}\nsummary: A summary.\n---\n{text_body}", encoding="utf-8")
    return path


def good_lesson(root: Path, number: int, slug: str, *, status: str = "published", exercise: str = "null",
                links: str = "[]", en: str | None = None, ko: str | None = None) -> Path:
    """A lesson with 1134 English words (its sources section included), a full Korean translation and one complete kernel."""
    folder = root / f"{number:02d}-{slug}"
    folder.mkdir(parents=True)
    meta = f"order: {number}\nslug: {slug}\nstatus: {status}\ntags: [test]\nexercise: {exercise}\nxp: 10\nlinks: {links}\n"
    (folder / "lesson.yaml").write_text(meta, encoding="utf-8")
    write_text(folder, "en", en if en is not None else body(EN_SENTENCE, ["Idea", "Detail"], sources=True))
    write_text(folder, "ko", ko if ko is not None else body(KO_SENTENCE, ["아이디어", "세부"], sources=True))
    return folder


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line of ``path`` containing ``needle``."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")
