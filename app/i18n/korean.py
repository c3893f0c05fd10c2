"""Korean particles that depend on the word before them, chosen after a message is formatted.

A Korean message whose particle follows a value (a number, a name, a quoted verdict) cannot know the
right form when it is written: "0을" but "2를", "“오답”으로" but "“통과”로". Catalog entries write both
forms with a slash — 을/를, 이/가, 은/는, 과/와, (으)로, (이)라는, 이에요/예요 — and ``KoreanText`` (what ``gettext``
returns for Korean) picks one when the message is formatted with ``%`` or ``format``, from the final
sound of what precedes it. The reader never sees a slash form.

Final sounds: a Hangul syllable's final consonant (jongseong); a number as it is read in Korean
(0 영, 1 일, 2 이 … 10 십, 100 백, 1000 천, 10000 만); a Latin letter or word as it is said
(M 엠, gemm 젬: an m/n/ng/l/k/p/t ending has a final consonant). Closing quotes and brackets are
looked through: "“오답”(으)로" judges 답.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

RIEUL = 8  # jongseong index of ㄹ: "(으)로" takes 로 after it, as after a vowel
_PARTICLES = {"을/를": ("을", "를"), "이/가": ("이", "가"), "은/는": ("은", "는"), "과/와": ("과", "와"),
              "(으)로": ("으로", "로"), "(이)라는": ("이라는", "라는"), "이에요/예요": ("이에요", "예요")}
_PATTERN = re.compile("|".join(re.escape(p) for p in _PARTICLES))
_CLOSERS = "”’\"')]}»》」』"
# How much of the text before a particle is read: its last word or number. The end-anchored searches
# below take time growing with the square of what they are given, and a value inside a message (a
# learner's directive name, say) may be 64 KiB long.
_TAIL = 64
# Final consonant (jongseong index) of the Korean reading of each digit: 영 일 이 삼 사 오 육 칠 팔 구
_DIGIT_FINAL = {"0": 21, "1": RIEUL, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": RIEUL, "8": RIEUL, "9": 0}
# ...and of the place words that end a round number: 십 백 천 / 만 억 조 경
_PLACE_FINAL = {1: 17, 2: 1, 3: 4}
_MYRIAD_FINAL = {4: 4, 8: 1, 12: 0, 16: 21}
# Latin letters said alone (A 에이, L 엘, M 엠, N 엔, R 알 ...): those with a final consonant
_LETTER_FINAL = {"l": RIEUL, "m": 16, "n": 4, "r": RIEUL}


def _number_final(digits: str) -> int:
    whole, _, frac = digits.replace(",", "").partition(".")
    if frac.strip("0"):
        return _DIGIT_FINAL[frac.rstrip("0")[-1]]
    if not whole.strip("0"):
        return _DIGIT_FINAL["0"]
    zeros = len(whole) - len(whole.rstrip("0"))
    if zeros == 0:
        return _DIGIT_FINAL[whole[-1]]
    if zeros % 4:
        return _PLACE_FINAL[zeros % 4]
    return _MYRIAD_FINAL.get(zeros, 4)


def _latin_final(word: str) -> int:
    w = word.lower()
    if len(w) == 1:
        return _LETTER_FINAL.get(w, 0)
    if w.endswith("ng"):
        return 21
    if w.endswith(("le", "l")):
        return RIEUL
    last = w[-1]
    return {"m": 16, "n": 4, "k": 1, "p": 17, "t": 19, "b": 17, "d": 19, "g": 1, "c": 1}.get(last, 0)


def final_consonant(text: str) -> int | None:
    """Jongseong index (0 = none) of how ``text`` ends when read aloud, or None when it cannot say."""
    text = text.rstrip().rstrip(_CLOSERS).rstrip()[-_TAIL:]
    if not text:
        return None
    last = text[-1]
    if "\uac00" <= last <= "\ud7a3":
        return (ord(last) - 0xAC00) % 28
    number = re.search(r"\d[\d,]*(?:\.\d+)?$", text)
    if number:
        return _number_final(number.group(0))
    word = re.search(r"[A-Za-z]+$", text)
    if word:
        return _latin_final(word.group(0))
    if last == "%":
        return 0  # 퍼센트
    return None


def choose(before: str, particle: str) -> str:
    with_final, without = _PARTICLES[particle]
    final = final_consonant(before)
    if final is None:  # a symbol we cannot read: the form after a consonant, which reads acceptably anywhere
        return with_final
    if particle == "(으)로":
        return without if final in (0, RIEUL) else with_final
    return with_final if final else without


def fix_particles(text: str) -> str:
    out, last = [], 0
    for match in _PATTERN.finditer(text):
        out.append(text[last:match.start()])
        # the text before, not yet settled: a slash form ends in the same sound as either of its forms
        out.append(choose(text[max(0, match.start() - 4 * _TAIL):match.start()], match.group(0)))
        last = match.end()
    out.append(text[last:])
    return "".join(out)


class KoreanText(str):
    """A Korean catalog string: formatting it also settles its particles."""

    def __mod__(self, values: Any) -> str:
        return fix_particles(str.__mod__(self, values))

    def format(self, *args: object, **kwargs: object) -> str:
        return fix_particles(str.format(self, *args, **kwargs))


def korean_gettext(gettext: Callable[[str], str]) -> Callable[[str], str]:
    def _(message: str) -> str:
        text = gettext(message)
        if not _PATTERN.search(text):
            return text
        if "%(" in text or "%s" in text or "{" in text:
            return KoreanText(text)  # settled when the values are filled in
        return fix_particles(text)
    return _
