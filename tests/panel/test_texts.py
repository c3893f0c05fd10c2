"""Every engine message code has a plain-language text in both languages, filled with the params
codes.py documents for it (no raw code, no leftover %(...)s placeholder)."""
import re
from pathlib import Path

import pytest

from app.panel import texts
from app.panel.present import message_text
from kernels.engine import codes

CODES_FILE = Path(codes.__file__)
# `NAME = "NAME"  # {a, b: [..], c}` -> the params the engine sends with that code
DECL = re.compile(r'^\w+ = "([A-Z_0-9]+)"\s*#\s*\{([^}]*)\}', re.M)


def documented_params() -> dict[str, list[str]]:
    out = {}
    for code, params in DECL.findall(CODES_FILE.read_text()):
        out[code] = [p.split(":")[0].strip() for p in re.sub(r"\[[^\]]*\]", "", params).split(",") if p.strip()]
    return out


SAMPLE = {"size": {"M": 17, "N": 17, "K": 17}, "index": [3, 4], "allowed": ["unroll"], "got": 0.5,
          "expected": 1.25, "limit": 1024, "text": "hi", "truncated": False}


def test_every_engine_code_has_a_text():
    missing = sorted(set(codes.all_codes()) - set(texts.CODES))
    assert missing == [], f"codes without a panel text: {missing}"


def test_params_of_every_code_are_documented_and_parsed():
    # if codes.py stops documenting params in its comments, the placeholder test below goes blind
    assert sorted(set(codes.all_codes()) - set(documented_params())) == []


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("code", sorted(set(codes.all_codes())))
def test_code_text_fills_every_placeholder(code, lang):
    params = {name: SAMPLE.get(name, 7) for name in documented_params().get(code, [])}
    text = message_text(code, params, lang)
    assert text and text != code
    assert "%(" not in text, text
    placeholders = set(re.findall(r"%\((\w+)\)s", texts.CODES[code]))
    assert placeholders <= set(params), f"{code} uses {placeholders - set(params)} the engine does not send"
    if lang == "ko":
        assert re.search(r"[\uac00-\ud7a3]", text), f"{code} has no Korean text: {text}"


def test_korean_differs_and_wrong_answer_reads_naturally():
    params = {"size": {"M": 17, "N": 17, "K": 17}, "index": [3, 4], "got": 0.0, "expected": 4.25}
    en = message_text("WRONG_ANSWER", params, "en")
    ko = message_text("WRONG_ANSWER", params, "ko")
    assert en == "Wrong answer at size M=17 N=17 K=17: at index [3, 4] the kernel wrote 0, expected 4.25."
    assert "오답" in ko and "[3, 4]" in ko and "4.25" in ko


def test_unknown_code_is_shown_as_itself_and_missing_param_does_not_crash():
    assert message_text("SOMETHING_NEW", {}, "en") == "SOMETHING_NEW"
    assert "?" in message_text("WRONG_ANSWER", {"size": {"M": 1}}, "en")


# Labels of verdicts, states and kernels live in app/core/vocabulary.py: tests/web/test_vocabulary.py
# checks that every engine verdict, state and kernel has both labels there.
