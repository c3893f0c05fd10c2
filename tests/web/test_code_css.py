"""static/css/code.css is what app/rendering/code.py generates, and every token colour meets WCAG 2.2 AA
(4.5:1) on the code background of its theme ('friendly', the style before, had comments at 2.8:1)."""
from __future__ import annotations

import re

from app.rendering.code import DARK_CODE_BG, LIGHT_CODE_BG, stylesheet
from app.templating import STATIC_DIR

# Backgrounds code sits on: the lesson code block, and comment code blocks (--surface-2 of each theme).
BACKGROUNDS = {":root .highlight": (LIGHT_CODE_BG, "#f0f2f6"), ":root[data-theme=dark] .highlight": (DARK_CODE_BG, "#1d2430")}


def _luminance(colour: str) -> float:
    hexa = colour.lstrip("#")
    if len(hexa) == 3:
        hexa = "".join(c * 2 for c in hexa)
    channels = [int(hexa[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_file_is_the_generated_stylesheet():
    assert (STATIC_DIR / "css" / "code.css").read_text(encoding="utf-8") == stylesheet(), \
        "regenerate: python -m app.rendering.code > static/css/code.css"


def test_every_token_colour_reaches_4_5_to_1():
    low = []
    for line in stylesheet().splitlines():
        match = re.match(r"(:root(?:\[data-theme=dark\])?) \.highlight \.(\w+) \{ color: (#[0-9A-Fa-f]{3,6})", line)
        if not match or match.group(2) == "w":  # whitespace has no visible glyphs
            continue
        for background in BACKGROUNDS[f"{match.group(1)} .highlight"]:
            ratio = contrast(match.group(3), background)
            if ratio < 4.5:
                low.append((match.group(2), match.group(3), background, round(ratio, 2)))
    assert low == []


def test_the_contrast_formula():
    assert round(contrast("#000", "#fff"), 1) == 21.0
    assert round(contrast("#60A0B0", LIGHT_CODE_BG), 2) == 2.79  # friendly's comment colour, as axe measured it
