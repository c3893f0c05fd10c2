"""Lesson catalog: validation with file:line, fallback, drafts, cache refresh, CLI exit codes."""
import os
import subprocess
import sys
import time

from fastapi.testclient import TestClient

from app.core.config import PROJECT_ROOT
from app.factory import create_app
from app.lessons.catalog import load_catalog
from app.templating import STATIC_DIR


def _catalog(root):
    return load_catalog(root, STATIC_DIR, root.parent / "kernels")


def _app(make_settings, tmp_path, lessons_dir, **overrides):
    return TestClient(create_app(make_settings(tmp_path, lessons_dir=lessons_dir, **overrides)), raise_server_exceptions=False)


def test_bad_yaml_is_reported_with_file_and_line_and_others_still_serve(tmp_path, lessons_dir, write_lesson, make_settings):
    write_lesson(lessons_dir, 1, "good-one")
    bad = write_lesson(lessons_dir, 2, "bad-yaml", yaml_text="order: 2\nslug: bad-yaml\nstatus: published\ntags: [a, b\nxp: 3\n")
    snapshot = _catalog(lessons_dir)
    [error] = snapshot.errors
    assert error.file == bad / "lesson.yaml"
    assert error.line in (4, 5)  # the unclosed list; PyYAML notices it on the next line
    assert "invalid YAML" in error.message
    with _app(make_settings, tmp_path, lessons_dir) as client:
        assert client.get("/en/lessons/good-one").status_code == 200
        assert client.get("/en/lessons/bad-yaml").status_code == 404
        index = client.get("/en/").text
        assert "good-one" in index and "bad-yaml" not in index


def test_missing_field_points_at_the_file(tmp_path, lessons_dir, write_lesson):
    folder = write_lesson(lessons_dir, 1, "no-status", yaml_text="order: 1\nslug: no-status\ntags: []\nxp: 5\n")
    [error] = _catalog(lessons_dir).errors
    assert error.file == folder / "lesson.yaml" and error.line == 1
    assert "missing required field 'status'" in error.message


def test_wrong_value_points_at_its_line(lessons_dir, write_lesson):
    folder = write_lesson(lessons_dir, 1, "bad-status", yaml_text="order: 1\nslug: bad-status\ntags: []\nstatus: finished\nxp: 5\n")
    [error] = _catalog(lessons_dir).errors
    assert (error.file, error.line) == (folder / "lesson.yaml", 4)
    assert "status" in error.message


def test_bad_front_matter_line_is_counted_from_the_top_of_the_file(lessons_dir, write_lesson):
    folder = write_lesson(lessons_dir, 1, "front", en="---\ntitle: Fine\nsummary: one: two\n---\nbody\n")
    [error] = _catalog(lessons_dir).errors
    assert (error.file, error.line) == (folder / "en.md", 3)


def test_missing_front_matter_title(lessons_dir, write_lesson):
    folder = write_lesson(lessons_dir, 1, "untitled", ko="---\nsummary: 요약\n---\n본문\n")
    [error] = _catalog(lessons_dir).errors
    assert error.file == folder / "ko.md" and "title" in error.message


def test_slug_must_match_folder(lessons_dir, write_lesson):
    write_lesson(lessons_dir, 1, "folder-name", yaml_text="order: 1\nslug: other-name\nstatus: published\n")
    [error] = _catalog(lessons_dir).errors
    assert error.line == 2 and "folder" in error.message


def test_missing_language_falls_back_with_a_notice(tmp_path, lessons_dir, write_lesson, make_settings):
    write_lesson(lessons_dir, 1, "english-only", ko=None)
    snapshot = _catalog(lessons_dir)
    assert snapshot.errors == [] and any("no ko.md" in p.message for p in snapshot.problems)
    # a missing language fails `lessons check`, so the lesson is a draft: seen on an author's machine
    with _app(make_settings, tmp_path, lessons_dir, show_drafts=True) as client:
        page = client.get("/ko/lessons/english-only").text
        assert "이 레슨은 아직 한국어로 번역되지 않아 영어 원문으로 보여 드려요." in page
        assert "English title english-only" in page
        assert '<article class="lesson" lang="en"' in page
        english = client.get("/en/lessons/english-only").text
        assert "not yet available" not in english


def test_drafts_are_hidden_from_visitors(tmp_path, lessons_dir, write_lesson, make_settings):
    write_lesson(lessons_dir, 1, "public")
    write_lesson(lessons_dir, 2, "secret-draft", status="draft")
    with _app(make_settings, tmp_path, lessons_dir) as client:
        assert client.get("/en/lessons/secret-draft").status_code == 404
        assert "secret-draft" not in client.get("/en/").text
        assert "Lesson 01 of 01" in client.get("/en/lessons/public").text
    with _app(make_settings, tmp_path, lessons_dir, show_drafts=True) as client:
        assert client.get("/en/lessons/secret-draft").status_code == 200


def test_changed_file_is_served_fresh(tmp_path, lessons_dir, write_lesson, make_settings):
    folder = write_lesson(lessons_dir, 1, "living")
    with _app(make_settings, tmp_path, lessons_dir) as client:
        assert "Body living." in client.get("/en/lessons/living").text
        path = folder / "en.md"
        path.write_text(path.read_text().replace("Body living.", "A rewritten paragraph."))
        stamp = time.time() + 5  # make sure the mtime differs even on coarse file systems
        os.utime(path, (stamp, stamp))
        page = client.get("/en/lessons/living").text
        assert "A rewritten paragraph." in page and "Body living." not in page


def test_lessons_check_cli_exit_codes(tmp_path, lessons_dir, write_lesson):
    # A published lesson ends with its sources section (app/lessons/claims.py).
    write_lesson(lessons_dir, 1, "fine",
                 ko="---\ntitle: 제목\nsummary: 요약.\n---\n## 첫 절\n\n본문.\n\n## 출처와 더 읽을거리\n\n- 자료.\n",
                 en="---\ntitle: Title\nsummary: Summary.\n---\n## First section\n\nBody.\n\n"
                    "## Sources and further reading\n\n- A source.\n")
    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path / "d"))

    def run():
        return subprocess.run([sys.executable, "-m", "app", "lessons", "check", "--dir", str(lessons_dir),
                               # the course-size rules (900 words, 8 kernels) are tested in tests/authoring
                               "--min-words", "0", "--min-kernels", "0"],
                              cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120)

    ok = run()
    assert ok.returncode == 0, ok.stderr
    assert "1 lessons loaded" in ok.stdout and "0 errors" in ok.stdout
    write_lesson(lessons_dir, 2, "broken", yaml_text="order: 2\nslug: broken\nstatus: published\nxp: -4\n")
    bad = run()
    assert bad.returncode == 1
    assert f"{lessons_dir / '02-broken' / 'lesson.yaml'}:4: error:" in bad.stderr
