"""A lesson set to published that fails `lessons check` (any error it reports in the lesson's files,
except compiling the code, which runs only in the command) stays a draft: learners get a 404 and the
course page leaves it out, instructors see it with the reasons on its page and at /{lang}/authoring;
/{lang}/authoring lists what `lessons check` finds and calls its errors errors, in both languages.
The shipped lessons pass and stay published."""
from __future__ import annotations

import pytest
from markupsafe import escape

from app.core.config import PROJECT_ROOT
from app.core.services import app_services
from app.lessons.check import check_course
from app.lessons.gate import load_checked_catalog
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
    for lang, reason in (("en", "image /static/img/lessons/nope.svg not found"),
                         ("ko", "이미지 /static/img/lessons/nope.svg 파일이 없어요")):
        page = teacher.get(f"/{lang}/lessons/broken-figure")
        assert page.status_code == 200 and BANNER[lang] in page.text and "data-held-back" in page.text
        assert reason in page.text


def test_the_authoring_page_lists_what_the_check_finds(app, browser, lessons_dir, write_lesson):  # noqa: F811
    write_lesson(lessons_dir, 3, "short-words", status="published",
                 en="---\ntitle: Short\nsummary: S.\n---\n## First section\n\nToo short.\n",
                 ko="---\ntitle: 짧음\nsummary: 요약.\n---\n## 첫 절\n\n너무 짧아요.\n")
    report = check_course(lessons_dir, STATIC_DIR, app_services(app).settings.kernels_dir, compile_cuda=False)
    errors = [p for p in report.problems if p.severity == "error"]
    assert errors  # tiny test lessons are too short for a published lesson
    teacher = browser("teacher2", "admin")
    for lang, word in (("en", "error: "), ("ko", "오류: ")):
        page = teacher.get(f"/{lang}/authoring").text
        assert page.count('data-severity="error"') == len(errors)
        assert word in page
    assert "of prose (code excluded)" in teacher.get("/en/authoring").text
    assert "단어예요(코드 제외). 공개 레슨에는 적어도 900단어가 필요해요" in page  # the findings in the reader's language


def test_the_english_guide_has_the_korean_guides_rules():
    from app.core.config import PROJECT_ROOT

    english = (PROJECT_ROOT / "lessons" / "AUTHORING.en.md").read_text(encoding="utf-8")
    korean = (PROJECT_ROOT / "lessons" / "AUTHORING.ko.md").read_text(encoding="utf-8")
    for rule in ("해요체", ".ko.svg"):
        assert rule in korean and rule in english, rule
    assert "## Korean style: 해요체" in english


SHORT_EN = ("---\ntitle: Short\nsummary: S.\n---\n## First section\n\nToo short.\n\n"
            "## Sources and further reading\n\n- [A reference](https://example.org/short): an example.\n")
SHORT_KO = ("---\ntitle: 짧음\nsummary: 요약.\n---\n## 첫 절\n\n짧아요.\n\n"
            "## 출처와 더 읽을거리\n\n- [참고 자료](https://example.org/short): 예시예요.\n")
# Each kind of error `lessons check` reports in a lesson's own files: how to make it, and what the
# reason shown to instructors says in each language.
BREAKS = {
    "too few words": (lambda f: (f / "en.md").write_text(SHORT_EN, encoding="utf-8"),
                      {"en": "a published lesson needs at least 900", "ko": "공개 레슨에는 적어도 900단어가 필요해요"}),
    "Korean shorter than English": (lambda f: (f / "ko.md").write_text(SHORT_KO, encoding="utf-8"),
                                    {"en": "translate the whole lesson", "ko": "레슨 전체를 번역해 주세요"}),
    "a heading in one language only": (lambda f: _edit(f / "en.md", lambda t: t + "\n## Extra\n\nMore.\n"),
                                       {"en": "have no counterpart", "ko": "그 뒤의 제목은 짝이 없어요"}),
    "a link to an unknown lesson": (lambda f: _edit(f / "en.md", lambda t: t.replace(
        "Body held.", "Body held. See [next](/en/lessons/no-such-lesson).")), {"en": "unknown lesson 'no-such-lesson'",
                                                            "ko": "없는 레슨 'no-such-lesson'"}),
    "no sources section": (lambda f: _edit(f / "ko.md", lambda t: t.split("## 출처와")[0]),
                           {"en": "no '## 출처와 더 읽을거리' section", "ko": "'## 출처와 더 읽을거리' 절이 없어요"}),
    "합쇼체 in Korean": (lambda f: _edit(f / "ko.md", lambda t: t.replace("본문 held.", "본문 held. 이것은 값입니다.")),
                       {"en": "is 합쇼체", "ko": "합쇼체예요. 해요체(…요)로 써 주세요"}),
    "the scaffold's placeholder": (lambda f: _edit(f / "en.md", lambda t: t.replace(
        "Body held.", "Body held. One or two sentences: what the reader will be able to do after this lesson.")),
        {"en": "the skeleton's placeholder is still here", "ko": "뼈대의 자리표시 문장이 아직 남아 있어요"}),
    "a speed without its source": (lambda f: _edit(f / "en.md", lambda t: t.replace(
        "Body held.", "Body held. This kernel reaches 900 GB/s on the card.")), {"en": "speed number '900 GB/s'",
                                                                   "ko": "속도 숫자 '900 GB/s'"}),
    "a missing language": (lambda f: (f / "ko.md").unlink(), {"en": "no ko.md", "ko": "ko.md가 없어요"}),
    "an unknown exercise": (lambda f: _edit(f / "lesson.yaml", lambda t: t.replace("exercise: null", "exercise: nope")),
                            {"en": "exercise 'nope' has no kernels/nope/ folder", "ko": "연습 문제 'nope'의 kernels/nope/ 폴더가 없어요"}),
}


def _edit(path, change) -> None:
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")


@pytest.mark.parametrize("kind", list(BREAKS))
def test_a_published_lesson_failing_the_check_is_held_back(app, browser, lessons_dir, write_lesson, kind):  # noqa: F811
    folder = write_lesson(lessons_dir, 3, "held")
    learner = browser("learner1")
    assert learner.get("/en/lessons/held").status_code == 200  # the default test lesson passes the check
    make, reason = BREAKS[kind]
    make(folder)
    teacher = browser("teacher1", "instructor")
    for lang in ("en", "ko"):
        assert learner.get(f"/{lang}/lessons/held").status_code == 404
        assert "/lessons/held" not in learner.get(f"/{lang}/").text
        page = teacher.get(f"/{lang}/lessons/held")
        assert page.status_code == 200 and BANNER[lang] in page.text and "data-held-back" in page.text
        assert str(escape(reason[lang])) in page.text
        authoring = teacher.get(f"/{lang}/authoring").text
        row = authoring.split('data-lesson-slug="held"')[1].split("</tr>")[0]
        assert "data-held-back-row" in row and str(escape(reason[lang])) in row
        assert HELD[lang] in row
    assert "/lessons/open-lesson" in learner.get("/en/").text  # the other lesson is still served


HELD = {"en": "it is kept a draft until these are fixed", "ko": "고칠 때까지 초안으로 남아 있어요"}


def test_a_draft_that_fails_the_check_is_just_a_draft(app, browser, lessons_dir, write_lesson):  # noqa: F811
    write_lesson(lessons_dir, 3, "rough", status="draft", en=SHORT_EN)
    page = browser("teacher3", "instructor").get("/en/lessons/rough").text
    assert BANNER["en"] in page and "data-held-back" not in page


def test_the_shipped_lessons_pass_and_stay_published():
    snapshot = load_checked_catalog(PROJECT_ROOT / "lessons", STATIC_DIR, PROJECT_ROOT / "kernels")
    assert [(lesson.slug, lesson.held_back) for lesson in snapshot.lessons if lesson.held_back] == []
    assert len(snapshot.visible()) == 7
