"""Every real lesson renders in both languages, with the seed page's structure."""
import html
import re

import pytest

from app.core.config import LANGUAGES, PROJECT_ROOT
from app.lessons.catalog import load_catalog
from app.progress.registry import ACHIEVEMENTS
from app.templating import STATIC_DIR

SNAPSHOT = load_catalog(PROJECT_ROOT / "lessons", STATIC_DIR, PROJECT_ROOT / "kernels")
PUBLISHED = [lesson for lesson in SNAPSHOT.lessons if lesson.published]


def test_real_catalog_has_seven_published_lessons_without_errors():
    assert [str(p) for p in SNAPSHOT.errors] == []
    assert [lesson.order for lesson in PUBLISHED] == [1, 2, 3, 4, 5, 6, 7]
    assert [lesson.meta.track for lesson in PUBLISHED] == ["core"] * 5 + ["further"] * 2


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("lesson", PUBLISHED, ids=lambda lesson: lesson.slug)
def test_lesson_renders(client, lesson, lang):
    response = client.get(f"/{lang}/lessons/{lesson.slug}")
    assert response.status_code == 200
    page = response.text
    text, _fallback = lesson.text(lang)
    assert f">{html.escape(text.title, quote=True)}</h1>" in page
    total = f"{len(PUBLISHED):02d}"
    expected = f"Lesson {lesson.number} of {total}" if lang == "en" else f"레슨 {lesson.number} / {total}"
    assert expected in page
    assert f'<html lang="{lang}">' in page
    for tag in lesson.meta.tags:
        assert f'<span class="tag">{tag}</span>' in page


def test_learner_strip_counts_come_from_catalog_and_registry(client):
    lesson = PUBLISHED[0]
    page = client.get(f"/en/lessons/{lesson.slug}").text
    strip = page[page.index('class="strip"'):page.index("</section>", page.index('class="strip"'))]
    text = re.sub(r"<[^>]+>", " ", strip)
    text = re.sub(r"\s+", " ", text)
    assert "Level 0 Beginner" in text
    assert "0 XP" in text
    assert f"0 /{len(PUBLISHED)} lessons" in text
    assert f"0 /{len(ACHIEVEMENTS)} achievements" in text
    assert "0/100 XP to next level" in text and "100 XP to go" in text and "0 % complete" in text


def test_lesson_page_sections(client):
    lesson = next(each for each in PUBLISHED if each.meta.exercise)
    page = client.get(f"/en/lessons/{lesson.slug}").text
    for link in lesson.meta.links:
        assert html.escape(link.title.en) in page
    assert "External links" in page and "Exercise" in page and f"<code>{lesson.meta.exercise}</code>" in page
    assert "Progress is stored in this browser only" in page and "data-mark-complete" in page
    ko_page = client.get(f"/ko/lessons/{lesson.slug}").text
    assert "외부 링크" in ko_page and "진행 상황은 이 브라우저에만 저장돼요" in ko_page
    for link in lesson.meta.links:
        assert html.escape(link.title.ko) in ko_page


def test_previous_and_next_links(client):
    first, second = PUBLISHED[0], PUBLISHED[1]
    page = client.get(f"/en/lessons/{second.slug}").text
    assert f'href="/en/lessons/{first.slug}" rel="prev"' in page
    page = client.get(f"/en/lessons/{first.slug}").text
    assert 'rel="prev"' not in page
    assert f'href="/en/lessons/{second.slug}" rel="next"' in page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_course_index_lists_every_published_lesson(client, lang):
    page = client.get(f"/{lang}/").text
    for lesson in PUBLISHED:
        text, _ = lesson.text(lang)
        assert f'href="/{lang}/lessons/{lesson.slug}"' in page
        assert html.escape(text.title, quote=True) in page
        assert f">{lesson.number}<" in page
    assert page.count('class="lesson-card"') == len(PUBLISHED)


CORE = ["matrix-layout-coalescing", "parallel-reduction", "transpose-bank-conflicts", "naive-vs-tiled-gemm",
        "register-tiling-tensor-cores"]
FURTHER = ["tensor-cores-hopper", "reading-what-the-gpu-ran"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_course_index_shows_the_five_lessons_as_the_track_then_going_further(client, lang):
    page = client.get(f"/{lang}/").text
    heading = {"en": "Going further", "ko": "더 나아가기"}[lang]
    cut = page.index(f'<h2 class="section-title" id="going-further">{heading}</h2>')
    core, further = page[:cut], page[cut:]
    assert re.findall(r'data-lesson-slug="([a-z0-9-]+)"', core) == CORE
    assert re.findall(r'data-lesson-slug="([a-z0-9-]+)"', further) == FURTHER
    lead = {"en": "Two lessons for after the first five: Tensor Cores", "ko": "처음 다섯 레슨 다음에 볼 두 레슨이에요"}[lang]
    assert lead in further
    assert {"en": "5 lessons", "ko": "레슨 5개"}[lang] in core       # the track's own count in the hero


def test_a_lesson_without_a_track_is_in_the_core_track():
    from app.lessons.schema import LessonMeta

    assert LessonMeta(order=9, slug="x", status="draft").track == "core"
    with pytest.raises(ValueError):
        LessonMeta(order=9, slug="x", status="draft", track="elsewhere")


def test_code_blocks_have_caption_language_and_copy_button(client):
    with_code = [each for each in PUBLISHED if "en" in each.texts and "```cuda" in each.texts["en"].body]
    assert with_code, "at least one lesson shows CUDA code"
    page = client.get(f"/en/lessons/{with_code[0].slug}").text
    assert '<span class="code__lang">cuda</span>' in page
    assert 'class="code__copy"' in page and ">Copy</button>" in page
    assert re.search(r'<span class="[a-z]+">float</span>', page)  # Pygments ran (its token class is its own choice)
