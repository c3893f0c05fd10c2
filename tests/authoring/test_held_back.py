"""A lesson set to published that is broken for readers (a missing image or exercise) stays a draft:
learners get a 404, instructors see it with the reasons; /{lang}/authoring lists what `lessons check`
finds (without the NVRTC compile) and calls its errors errors, in both languages."""
from __future__ import annotations

from app.core.services import app_services
from app.lessons.check import check_course
from app.templating import STATIC_DIR

from .test_drafts import BANNER, app, browser  # noqa: F401  (pytest fixtures)


def test_a_published_lesson_with_a_missing_image_is_held_back(app, browser, lessons_dir, write_lesson):  # noqa: F811
    write_lesson(lessons_dir, 3, "broken-figure",
                 en="---\ntitle: Broken\nsummary: S.\n---\n## First section\n\n![a chart](/static/img/lessons/nope.svg)\n",
                 ko="---\ntitle: 깨짐\nsummary: 요약.\n---\n## 첫 절\n\n![차트](/static/img/lessons/nope.svg)\n")
    learner = browser("learner1")
    assert learner.get("/en/lessons/broken-figure").status_code == 404
    assert "broken-figure" not in learner.get("/en/").text
    teacher = browser("teacher1", "instructor")
    for lang in ("en", "ko"):
        page = teacher.get(f"/{lang}/lessons/broken-figure")
        assert page.status_code == 200 and BANNER[lang] in page.text and "data-held-back" in page.text
        assert "image /static/img/lessons/nope.svg not found" in page.text


def test_the_authoring_page_lists_what_the_check_finds(app, browser, lessons_dir, write_lesson):  # noqa: F811
    write_lesson(lessons_dir, 3, "short-words", status="published")
    report = check_course(lessons_dir, STATIC_DIR, app_services(app).settings.kernels_dir, compile_cuda=False)
    errors = [p for p in report.problems if p.severity == "error"]
    assert errors  # tiny test lessons are too short for a published lesson
    teacher = browser("teacher2", "admin")
    for lang, word in (("en", "error: "), ("ko", "오류: ")):
        page = teacher.get(f"/{lang}/authoring").text
        assert page.count('data-severity="error"') == len(errors)
        assert word in page
    assert "of prose (code excluded)" in page


def test_the_english_guide_has_the_korean_guides_rules():
    from app.core.config import PROJECT_ROOT

    english = (PROJECT_ROOT / "lessons" / "AUTHORING.en.md").read_text(encoding="utf-8")
    korean = (PROJECT_ROOT / "lessons" / "AUTHORING.ko.md").read_text(encoding="utf-8")
    for rule in ("해요체", ".ko.svg"):
        assert rule in korean and rule in english, rule
    assert "## Korean style: 해요체" in english
