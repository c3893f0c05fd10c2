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
