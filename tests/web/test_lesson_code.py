"""Lesson code blocks: complete cuda blocks compile with NVRTC; ko and en show the same code."""
import pytest

from app.core.config import PROJECT_ROOT
from app.lessons.catalog import load_catalog
from app.lessons.codecheck import check_lesson_code, normalized
from app.templating import STATIC_DIR

try:
    from cupy.cuda import nvrtc  # noqa: F401  (compiles on the CPU; no GPU needed)
except ImportError:  # pragma: no cover - cupy is a hard dependency; skip rather than fail if absent
    pytest.skip("NVRTC (cupy) is needed to compile lesson code", allow_module_level=True)

BROKEN = '''---
title: Broken kernel
summary: s
---
## Code

Some text.

```cuda title="Does not compile"
extern "C" __global__ void k(float* x) { x[0] = undefined_name; }
```

```cuda fragment title="Only an excerpt"
acc += a * b;
```
'''


def test_real_lessons_code_compiles_and_matches_across_languages():
    snapshot = load_catalog(PROJECT_ROOT / "lessons", STATIC_DIR, PROJECT_ROOT / "kernels")
    problems = [str(p) for lesson in snapshot.lessons for p in check_lesson_code(lesson)]
    assert problems == []


def test_a_block_that_does_not_compile_is_reported_at_its_fence(lessons_dir, write_lesson):
    folder = write_lesson(lessons_dir, 1, "broken-code", en=BROKEN, ko=BROKEN)
    lesson = load_catalog(lessons_dir, STATIC_DIR, lessons_dir).get("broken-code")
    errors = [p for p in check_lesson_code(lesson) if p.severity == "error"]
    assert {(p.file, p.line) for p in errors} == {(folder / "en.md", 9), (folder / "ko.md", 9)}
    assert all("undefined_name" in p.message for p in errors)


def test_code_that_differs_between_languages_is_flagged(lessons_dir, write_lesson):
    good = BROKEN.replace("undefined_name", "1.0f")
    changed = good.replace("x[0] = 1.0f;", "x[1] = 1.0f; /* 주석 */")
    write_lesson(lessons_dir, 1, "drift", en=good, ko=changed)
    lesson = load_catalog(lessons_dir, STATIC_DIR, lessons_dir).get("drift")
    [warning] = check_lesson_code(lesson)
    assert "differs" in warning.message and warning.line == 9


def test_translated_comments_do_not_count_as_different_code():
    assert normalized('x = 1; // one\n/* block */ y = "//not a comment";') == normalized('x = 1; // 하나\ny = "//not a comment";')
