"""The Korean header comments of the rung sources (kernels/ladder/headers.ko.md).

Each rung file starts with a ``//`` comment block: its title line, machine-readable lines
(``launch:``, ``dtype:``, ``arch:``, ``tma:``, ``grid:``, read by kernels/ladder/rungs.py), an empty ``//``
and the prose that says what the rung changes and why. The Korean ladder page shows the same
source with the title and prose from headers.ko.md; the machine-readable lines and the code stay
as they are, so the Korean source compiles exactly like the English one.
"""
from __future__ import annotations

import re

from kernels.ladder.rungs import is_setting_line

HEADERS_KO_FILE = "headers.ko.md"
_SECTION = re.compile(r"^## (\d\d_[a-z0-9_]+)[ \t]*$", re.M)


def parse_headers(text: str) -> dict[str, str]:
    """{stem: Korean header text} for each ``## NN_stem`` section (first line: the title line)."""
    starts = list(_SECTION.finditer(text))
    out = {}
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        body = text[match.end():end].strip("\n").rstrip()
        if body.strip():
            out[match.group(1)] = body
    return out


def _comment(line: str) -> str:
    return f"// {line}" if line.strip() else "//"


def localized_source(source: str, header: str) -> str:
    """``source`` with its leading comment block's title and prose replaced by ``header``
    (title line first, then the prose); the machine-readable lines and the code unchanged.
    An empty ``header`` or a source without a leading comment block returns ``source``."""
    lines = source.split("\n")
    end = 0
    while end < len(lines) and lines[end].startswith("//"):
        end += 1
    if not header.strip() or end == 0:
        return source
    machine = [line for line in lines[1:end] if is_setting_line(line)]
    title, _, prose = header.partition("\n")
    block = [_comment(title.strip()), *machine, "//", *(_comment(p.rstrip()) for p in prose.strip("\n").split("\n"))]
    return "\n".join(block + lines[end:])
