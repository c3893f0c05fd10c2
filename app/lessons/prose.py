"""Measure a lesson body's prose: words, Hangul syllables, headings and code blocks, per section.

Parsed with markdown-it (the same parser family the site renders with), so text inside code
fences, ``:::`` container markers and link targets never counts as prose. A "section" is what
a ``##`` heading starts; section 0 is whatever comes before the first ``##``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin

HANGUL_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")

_PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# Any ``::: name`` container (note, warning, exercise, measured, ...) is structure, not text.
_PARSER.use(container_plugin, name="any", validate=lambda *_: True)


@dataclass
class Section:
    title: str
    line: int  # 1-based line in the file (the heading's line; the body start for section 0)
    words: int = 0  # whitespace-separated words of prose
    hangul: int = 0  # Hangul syllables of prose


@dataclass
class Structure:
    sections: list[Section] = field(default_factory=list)
    headings: list[tuple[int, int]] = field(default_factory=list)  # (level, file line), ## and deeper
    code_lines: list[int] = field(default_factory=list)  # file line of each fenced code block

    @property
    def words(self) -> int:
        return sum(s.words for s in self.sections)

    @property
    def hangul(self) -> int:
        return sum(s.hangul for s in self.sections)


def _prose(inline: Token) -> str:
    """Reader-visible text of an inline token: text and inline code, not URLs or image alt text."""
    parts = []
    for child in inline.children or []:
        if child.type == "image":
            continue  # alt text is stored on the image token itself, not as text children
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join(parts)


def structure(body: str, body_line: int) -> Structure:
    tokens = _PARSER.parse(body)
    result = Structure(sections=[Section("", body_line)])
    for i, token in enumerate(tokens):
        line = body_line + token.map[0] if token.map else body_line
        if token.type == "heading_open" and int(token.tag[1]) >= 2:
            result.headings.append((int(token.tag[1]), line))
            if token.tag == "h2":
                title = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""
                result.sections.append(Section(title, line))
        elif token.type in ("fence", "code_block"):
            result.code_lines.append(line)
        elif token.type == "inline":
            text = _prose(token)
            section = result.sections[-1]
            section.words += len(text.split())
            section.hangul += len(HANGUL_SYLLABLE.findall(text))
    return result
