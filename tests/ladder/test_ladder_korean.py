"""The Korean ladder is complete: every rung's source header has its Korean
version in kernels/ladder/headers.ko.md, every rung paragraph of NOTES.md has its twin in
NOTES.ko.md, and the Korean source page shows the Korean header over the very same code."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.ladder.content import _RUNG_SECTION_KO, NOTES_FILE, NOTES_KO_FILE, load_content, notes_paragraphs
from app.ladder.headers import HEADERS_KO_FILE, localized_source, parse_headers
from kernels.ladder.rungs import discover, is_setting_line, parse_rung

LADDER = Path(__file__).resolve().parents[2] / "kernels" / "ladder"
RUNGS = discover(LADDER)
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def _code(source: str) -> list[str]:
    return [line for line in source.split("\n") if not line.startswith("//")]


def _machine(source: str) -> list[str]:
    return [line for line in source.split("\n") if is_setting_line(line)]


def test_every_rung_has_a_korean_header():
    headers = parse_headers((LADDER / HEADERS_KO_FILE).read_text(encoding="utf-8"))
    assert sorted(headers) == sorted(r.stem for r in RUNGS), "headers.ko.md: one section per rung file"
    for rung in RUNGS:
        title, _, prose = headers[rung.stem].partition("\n")
        assert title.startswith(f"{rung.stem} — ") and HANGUL.search(title), title
        assert HANGUL.search(prose) and len(prose.split()) > 10, f"{rung.stem}: no Korean prose"


def test_every_rung_paragraph_of_the_notes_is_in_korean():
    english = notes_paragraphs((LADDER / NOTES_FILE).read_text(encoding="utf-8"))
    korean = notes_paragraphs((LADDER / NOTES_KO_FILE).read_text(encoding="utf-8"), _RUNG_SECTION_KO)
    assert sorted(english) == sorted(korean), f"missing in NOTES.ko.md: {sorted(set(english) - set(korean))}"
    for stem, text in korean.items():
        assert HANGUL.search(text), f"{stem}: the Korean paragraph has no Korean"


@pytest.mark.parametrize("rung", RUNGS, ids=lambda r: r.stem)
def test_the_korean_source_is_the_same_code_under_a_korean_header(rung, tmp_path):
    text = next(r for r in load_content(LADDER).rungs if r.stem == rung.stem)
    korean, english = text.source("ko"), text.source("en")
    assert english == rung.source
    assert _code(korean) == _code(english) and _machine(korean) == _machine(english)
    (tmp_path / rung.path.name).write_text(korean, encoding="utf-8")
    settings = parse_rung(tmp_path / rung.path.name)  # what the engine reads from the header is unchanged
    assert (settings.block, settings.tile, settings.smem, settings.dtype, settings.arch, settings.tma,
            settings.persistent) == (rung.block, rung.tile, rung.smem, rung.dtype, rung.arch, rung.tma, rung.persistent)
    header = [line for line in korean.split("\n") if line.startswith("//")]
    assert HANGUL.search(header[0]) and sum(bool(HANGUL.search(line)) for line in header) >= 3


def test_localized_source_leaves_a_source_without_header_or_translation_alone():
    source = "// 01_x — a title\n// launch: block=32,1,1 tile=32,32 smem=0\n//\n// English prose.\nint x;\n"
    assert localized_source(source, "") == source
    assert localized_source("int x;\n", "01_x — 제목\n\n설명이에요.") == "int x;\n"
    assert localized_source(source, "01_x — 제목\n\n설명이에요.\n둘째 줄이에요.") == (
        "// 01_x — 제목\n// launch: block=32,1,1 tile=32,32 smem=0\n//\n// 설명이에요.\n// 둘째 줄이에요.\nint x;\n")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_source_fragment_speaks_the_pages_language(lang):
    import tempfile

    from fastapi.testclient import TestClient

    from app.factory import create_app
    from tests.conftest import make_settings

    with tempfile.TemporaryDirectory() as tmp, TestClient(create_app(make_settings(Path(tmp)))) as client:
        fragment = client.get(f"/{lang}/ladder/source/14_tma_mbarrier").text
    assert ("cp.async.bulk.tensor" in fragment) and ("launch" in fragment)
    assert bool(HANGUL.search(fragment)) == (lang == "ko")
    assert ("Changed from 13: who copies" in fragment) == (lang == "en")
