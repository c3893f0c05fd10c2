"""The course as it ships passes `lessons check`: CI fails the moment a lesson breaks."""
from __future__ import annotations

import os
import subprocess
import sys

from app.core.config import PROJECT_ROOT
from app.lessons.check import MIN_COURSE_KERNELS, check_course
from app.lessons.codecheck import code_blocks
from app.templating import STATIC_DIR


def test_real_lessons_pass_every_check():
    report = check_course(PROJECT_ROOT / "lessons", STATIC_DIR, PROJECT_ROOT / "kernels")
    assert [str(p) for p in report.problems] == []  # warnings too: the shipped course is clean
    complete = sum(1 for lesson in report.lessons for text in lesson.texts.values()
                   for block in code_blocks(text.body, text.body_line)
                   if block.language == "cuda" and not block.fragment)
    assert complete and report.compiled == complete  # every complete block really went through NVRTC
    assert report.course_kernels >= MIN_COURSE_KERNELS
    assert len([lesson for lesson in report.lessons if lesson.published]) >= 5


def test_cli_passes_on_the_real_lessons(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MKC_")}
    env["MKC_DATA_DIR"] = str(tmp_path / "data")
    run = subprocess.run([sys.executable, "-m", "app", "lessons", "check", "--strict"], cwd=PROJECT_ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 errors, 0 warnings" in run.stdout


def test_korean_lessons_title_and_run_in_headings_are_korean():
    """What a Korean reader sees first is Korean: every ko.md title, and every bold run-in heading
    that opens a paragraph or a list item ("**시작 코드.**", not "**Starter code.**")."""
    import re

    for ko in sorted((PROJECT_ROOT / "lessons").glob("[0-9][0-9]-*/ko.md")):
        text = ko.read_text(encoding="utf-8")
        title = re.search(r"^title:\s*(.+)$", text, re.M)
        assert title and re.search("[가-힣]", title.group(1)), f"{ko}: title without Hangul"
        for heading in re.findall(r"^(?:\d+\. )?\*\*([^*]+[.:])\*\*", text, re.M):
            assert re.search("[가-힣]", heading), f"{ko}: run-in heading '{heading}' is not Korean"
