"""The catalog as learners get it: a lesson whose lesson.yaml says published is kept a draft while
``python -m app lessons check`` reports an error in its files (its folder, or its exercise's
kernels/<id>/ folder). Instructors see it with the reasons on its page and at /{lang}/authoring.

The check runs without the NVRTC compile: compiling every block takes seconds and needs the
compiler, and the catalog is reloaded inside a request when a lesson file changes. Errors that
belong to no lesson (the course's total of kernels) hold nothing back: holding a lesson back
would only lower that total further.

The check reads every lesson and spec (about half a second for the shipped course), so its
findings are kept per set of file versions: a process that builds many apps over the same
folder (tests, the CLI beside the server) checks it once.
"""
from __future__ import annotations

import threading
from pathlib import Path

from app.lessons.catalog import Lesson, Problem, Snapshot, load_catalog
from app.lessons.check import check_course

_Key = tuple[Path, Path, Path, tuple[tuple[str, int, int], ...]]
_found: dict[_Key, list[Problem]] = {}
_lock = threading.Lock()
_KEEP = 8  # distinct folder versions remembered (tests build many small lessons folders)


def _versions(*folders: Path) -> tuple[tuple[str, int, int], ...]:
    """Every file under the folders, with its modification time and size: any edit changes it."""
    seen = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in folder.rglob("*"):
            if path.suffix in {".md", ".yaml", ".yml", ".cu", ".cuh", ".py"}:
                try:
                    stat = path.stat()
                except OSError:
                    continue
                seen.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(sorted(seen))


def _errors(lessons_dir: Path, static_dir: Path, kernels_dir: Path, exercises: list[Path]) -> list[Problem]:
    key = (lessons_dir, static_dir, kernels_dir, _versions(lessons_dir, *exercises))
    with _lock:
        if key in _found:
            return _found[key]
    errors = check_course(lessons_dir, static_dir, kernels_dir, compile_cuda=False).errors
    with _lock:
        if len(_found) >= _KEEP:
            _found.pop(next(iter(_found)))
        _found[key] = errors
    return errors


def _belongs_to(problem: Problem, lesson: Lesson, kernels_dir: Path) -> bool:
    places = [lesson.folder]
    if lesson.meta.exercise:
        places.append(kernels_dir / lesson.meta.exercise)
    return any(place == problem.file or place in problem.file.parents for place in places)


def load_checked_catalog(lessons_dir: Path, static_dir: Path, kernels_dir: Path) -> Snapshot:
    """The catalog, with each published lesson that fails the check held back (Lesson.held_back)."""
    snapshot = load_catalog(lessons_dir, static_dir, kernels_dir)
    published = [lesson for lesson in snapshot.lessons if lesson.meta.status == "published"]
    if not published:
        return snapshot
    exercises = sorted({kernels_dir / lesson.meta.exercise for lesson in published if lesson.meta.exercise})
    errors = _errors(lessons_dir, static_dir, kernels_dir, exercises)
    for lesson in published:
        for problem in errors:
            # the catalog's own findings are already there (the check repeats them, promoted to errors)
            seen = {(p.file, p.line, str(p.message)) for p in lesson.held_back}
            if _belongs_to(problem, lesson, kernels_dir) and (problem.file, problem.line, str(problem.message)) not in seen:
                lesson.held_back.append(problem)
    return snapshot
