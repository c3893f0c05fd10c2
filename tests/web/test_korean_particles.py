"""Korean particles follow the word before them: never "0를", "67를" or "(으)로"."""
from __future__ import annotations

import re

import pytest

from app.i18n import gettext_for
from app.i18n.korean import KoreanText, final_consonant, fix_particles


@pytest.mark.parametrize("before, particle, expected", [
    ("0", "을/를", "0을"), ("2", "을/를", "2를"), ("67", "을/를", "67을"), ("10", "을/를", "10을"),
    ("100", "이/가", "100이"), ("1000", "(으)로", "1000으로"), ("3.5", "을/를", "3.5를"),
    ("“오답”", "(으)로", "“오답”으로"), ("“통과”", "(으)로", "“통과”로"), ("“실행 오류”", "(으)로", "“실행 오류”로"),
    ("커널", "이/가", "커널이"), ("스레드", "이/가", "스레드가"), ("gemm", "은/는", "gemm은"),
    ("Block x", "은/는", "Block x는"), ("TFLOP/s", "(으)로", "TFLOP/s로"), ("7", "(으)로", "7로"),
    ("42", "이에요/예요", "42예요"), ("1024", "이에요/예요", "1024예요"), ("8192", "이에요/예요", "8192예요"),
    ("3", "이에요/예요", "3이에요"), ("col_sum", "(이)라는", "col_sum이라는"),
])
def test_particle_follows_the_final_sound(before, particle, expected):
    assert fix_particles(before + particle) == expected


def test_final_consonants():
    assert final_consonant("밥") == 17 and final_consonant("가") == 0 and final_consonant("10000") == 4
    assert final_consonant("!") is None


def test_catalog_strings_settle_when_formatted():
    _ = gettext_for("ko")
    text = _("Wrong answer at size %(size)s: at index %(index)s the kernel wrote %(got)s, expected %(expected)s.")
    assert isinstance(text, KoreanText)
    done = text % {"size": "1024", "index": 67, "got": 0, "expected": 2}
    assert "0을 썼" in done and "/" not in done.replace("TFLOP/s", "")


def test_no_slash_form_or_hapnida_left_in_the_korean_catalog_output():
    """Every Korean message, formatted with plain values, shows no slash particle; one speech level (해요체)."""
    from babel.messages.pofile import read_po

    from app.i18n.tools import po_path

    with po_path("ko").open("rb") as handle:
        catalog = read_po(handle, locale="ko")
    _ = gettext_for("ko")
    slash = re.compile(r"을/를|이/가|은/는|과/와|\(으\)로|\(이\)라는|이에요/예요")
    for message in catalog:
        if not message.id or not message.string or isinstance(message.id, tuple):
            continue
        assert "니다" not in message.string, message.string
        text = _(message.id)
        names = re.findall(r"%\((\w+)\)s", message.id)
        if names:
            shown = text % {n: "7" for n in names}
        else:
            try:
                shown = text.format(**{n: "7" for n in re.findall(r"\{(\w+)\}", text)})
            except (KeyError, IndexError, ValueError):
                shown = str(text)  # literal braces (a JSON example), not a format string
        assert not slash.search(shown), (message.id, shown)
