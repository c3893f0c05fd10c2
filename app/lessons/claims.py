"""What a lesson claims, checked: speed numbers, jargon, Korean code text, glossary.

- **Speed numbers.** A number with a unit of speed (TFLOP/s, GFLOP/s, GB/s, TB/s, ms, µs, a
  factor such as ``1.5×``) in prose is either measured on this server — then it comes
  from ``kernels/results/`` through a ``::: measured``/``::: ladder`` block and is never typed — or
  it belongs to a named external source. The citation marker is a link to the lesson's own
  sources section: ``[…](#sources-and-further-reading)`` in English, ``[…](#출처와-더-읽을거리)``
  in Korean. It must sit in the same paragraph, list item or heading; a table carries it in any
  cell or in the paragraph right before the table. A table whose header names a speed unit
  counts its numbers as speed numbers.
- **Jargon.** Learners never read "seed" (or 원본 레슨/원본 자료/시드): sources are named by title.
- **Korean code text.** A code block's title, its comments, and an image's alt text in ko.md
  must hold Hangul wherever the en.md twin has words.
- **Glossary.** AUTHORING.ko.md's ``## 용어집`` table lists the Korean term to use and the forms to
  avoid; an avoided form in Korean prose is an error.
- **Speech level.** Korean prose is 해요체. A formal (합쇼체) ending — a syllable closed by ㅂ
  followed by 니다 or 니까: 합니다, 셉니다, 있습니다, 입니까 — is an error. The glossary cannot list
  them: every verb has its own form.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from mdit_py_plugins.container import container_plugin

from app.lessons.codecheck import code_blocks
from app.lessons.said import Said, _

SOURCES_ANCHOR = {"en": "#sources-and-further-reading", "ko": "#출처와-더-읽을거리"}
SOURCES_HEADING = {"en": "Sources and further reading", "ko": "출처와 더 읽을거리"}

_NUM = r"(?<![\w.])\d[\d,]*(?:\.\d+)?"
SPEED = re.compile(
    _NUM + r"(?:\s*[–-]\s*\d[\d,]*(?:\.\d+)?)?"
    r"(?:\s*(?:[TGMk]FLOP/s|[TG]FLOPS|[TGM]B/s|(?:ms|µs|us)\b)|×(?![\w(²³]|\s*\d))")
UNIT_WORD = re.compile(r"[TGMk]FLOP/s|[TG]FLOPS|[TGM]B/s|\((?:ms|µs)\)|\b(?:ms|µs)\b|×\s*(?:\||$)")
DIGIT = re.compile(r"\d")
HANGUL = re.compile(r"[\uac00-\ud7a3]")
WORD = re.compile(r"[A-Za-z]{2,}")
JARGON = re.compile(r"\bseeds?\b|원본\s*(?:레슨|자료|문서|글)|시드", re.I)
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(")
_COMMENT = re.compile(r"//([^\n]*)|/\*(.*?)\*/", re.S)
_CODE_SPAN = re.compile(r"`[^`]*`")

_PARSER = MarkdownIt("commonmark").enable(["table"])
_PARSER.use(container_plugin, name="any", validate=lambda *_: True)


@dataclass(frozen=True)
class Claim:
    line: int
    message: str


def _blocks(body: str, body_line: int) -> list[tuple[str, int, str]]:
    """(kind, line, raw text) for every paragraph, heading and table outside measured containers.

    raw text keeps link targets (the marker is a link); code spans are blanked.
    """
    tokens = _PARSER.parse(body)
    lines = body.split("\n")
    out: list[tuple[str, int, str]] = []
    skip = 0
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "container_any_open":
            if t.info.strip().split()[:1] in (["measured"], ["ladder"]):
                skip += 1
        elif t.type == "container_any_close" and skip:
            skip -= 1
        elif not skip and t.type == "table_open" and t.map:
            start, end = t.map
            out.append(("table", body_line + start, "\n".join(lines[start:end])))
            while tokens[i].type != "table_close":
                i += 1
        elif not skip and t.type in ("paragraph_open", "heading_open") and t.map:
            start, end = t.map
            out.append(("heading" if t.type == "heading_open" else "paragraph",
                        body_line + start, "\n".join(lines[start:end])))
        i += 1
    return out


def _clean(raw: str) -> str:
    return _CODE_SPAN.sub(" ", raw)


def speed_claims(body: str, body_line: int, lang: str) -> list[Claim]:
    anchor = SOURCES_ANCHOR[lang]
    problems = []
    previous: tuple[str, int, str] | None = None  # the block before this one: (kind, line, text)
    for kind, line, raw in _blocks(body, body_line):
        if kind == "heading" and raw.lstrip("# ").strip() == SOURCES_HEADING[lang]:
            break  # the sources section is what the markers point at: its numbers name their source
        text = _clean(raw)
        cited = any(target == anchor for target in _LINK_TARGET.findall(raw))
        if kind == "table":
            rows = text.split("\n")
            header, rest = rows[0], "\n".join(rows[2:])
            found = SPEED.search(text) or (UNIT_WORD.search(header) and DIGIT.search(rest))
            before = previous if previous and previous[0] == "paragraph" and previous[1] + previous[2].count("\n") + 2 >= line else None
            cited = cited or bool(before and any(t == anchor for t in _LINK_TARGET.findall(before[2])))
            if found and not cited:
                problems.append(Claim(line, Said(_("a table of speed numbers with no citation: numbers measured here come from "
                                                   "::: measured/::: ladder, a source's numbers carry a link to %(anchor)s "
                                                   "in the table or the paragraph before it"), anchor=anchor)))
        else:
            for match in SPEED.finditer(text):
                if not cited:
                    at = line + text.count("\n", 0, match.start())
                    problems.append(Claim(at, Said(_("speed number '%(number)s' typed in prose with no citation: measured here → "
                                                     "::: measured/::: ladder; from a source → link to %(anchor)s in the "
                                                     "same paragraph (AUTHORING, 'Numbers')"),
                                                   number=match.group(0).strip(), anchor=anchor)))
                    break
        previous = (kind, line, raw)
    return problems


def jargon(body: str, body_line: int) -> list[Claim]:
    out = []
    for n, text in enumerate(body.split("\n")):
        match = JARGON.search(text)
        if match:
            out.append(Claim(body_line + n, Said(_("'%(word)s' is internal jargon: name the source by its title "
                                                    "(learners never see this word)"), word=match.group(0))))
    return out


def _comments(code: str) -> list[str]:
    return [(a if a is not None else b).strip() for a, b in _COMMENT.findall(code)]


def _words(text: str) -> bool:
    return len(WORD.findall(text)) >= 2


def korean_code_text(en_body: str, en_line: int, ko_body: str, ko_line: int) -> list[Claim]:
    """ko titles, comments and alt texts must hold Hangul where the en twin has words."""
    out = []
    # twins are paired in order; a count mismatch is reported by the structure check
    for e, k in zip(code_blocks(en_body, en_line), code_blocks(ko_body, ko_line), strict=False):
        if _words(e.title) and not HANGUL.search(k.title):
            out.append(Claim(k.line, Said(_("code title '%(title)s' is not Korean (English: '%(english)s')"),
                                            title=k.title, english=e.title)))
        ko_comments = _comments(k.code)
        for ec, kc in zip(_comments(e.code), ko_comments, strict=False):
            if _words(ec) and not HANGUL.search(kc):
                offset = next((n for n, line in enumerate(k.code.split("\n")) if kc and kc in line), 0)
                out.append(Claim(k.line + 1 + offset, Said(_("code comment '%(comment)s' is not Korean"), comment=kc[:60])))
    en_alts = [(n, m.group(1)) for n, line in enumerate(en_body.split("\n")) for m in _IMAGE.finditer(line)]
    ko_alts = [(n, m.group(1)) for n, line in enumerate(ko_body.split("\n")) for m in _IMAGE.finditer(line)]
    for (_en_line, ea), (kn, ka) in zip(en_alts, ko_alts, strict=False):
        if _words(ea) and not HANGUL.search(ka):
            out.append(Claim(ko_line + kn, Said(_("image alt text '%(alt)s' is not Korean"), alt=ka[:60])))
    return out


def load_glossary(authoring_ko: Path) -> list[tuple[str, list[str]]]:
    """(term to use, [forms to avoid]) from the ``## 용어집`` table of AUTHORING.ko.md."""
    try:
        text = authoring_ko.read_text(encoding="utf-8")
    except OSError:
        return []
    section = re.search(r"^## 용어집\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not section:
        return []
    entries = []
    for row in section.group(1).split("\n"):
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) < 2 or not row.strip().startswith("|") or set(cells[0]) <= set("-: "):
            continue
        avoid = [a.strip().strip("`") for a in cells[1].split(",") if a.strip().strip("`") and a.strip() != "—"]
        if avoid and cells[0] not in ("쓸 말",):
            entries.append((cells[0].strip("`"), avoid))
    return entries


def _korean_prose(ko_body: str, ko_line: int) -> Iterator[tuple[int, str]]:
    """(line, text) of each Korean block before the sources section, without link targets and
    code spans (they are not prose; source titles in the sources section are quoted as they are)."""
    for kind, line, raw in _blocks(ko_body, ko_line):
        if kind == "heading" and raw.lstrip("# ").strip() == SOURCES_HEADING["ko"]:
            break
        yield line, re.sub(r"\]\([^)]*\)", "]", _clean(raw))


def glossary_claims(ko_body: str, ko_line: int, glossary: list[tuple[str, list[str]]]) -> list[Claim]:
    out = []
    for line, text in _korean_prose(ko_body, ko_line):
        for term, avoid in glossary:
            for form in avoid:
                pattern = rf"(?<![A-Za-z_/.]){re.escape(form)}(?![A-Za-z_])" if form.isascii() else re.escape(form)
                match = re.search(pattern, text, re.I if form.isascii() else 0)
                if match:
                    out.append(Claim(line + text.count("\n", 0, match.start()),
                                     Said(_("glossary (AUTHORING.ko.md, 용어집): write '%(term)s', not '%(form)s'"),
                                          term=term, form=form)))
    return out


_FORMAL_ENDING = re.compile(r"([가-힣])니[다까]")
_JONGSEONG_BIEUP = 17  # index of the final consonant ㅂ in a precomposed Hangul syllable


def _closed_by_bieup(syllable: str) -> bool:
    return (ord(syllable) - 0xAC00) % 28 == _JONGSEONG_BIEUP


def speech_level_claims(ko_body: str, ko_line: int) -> list[Claim]:
    """합쇼체 endings (셉니다, 있습니다, 입니까) in Korean prose: the lessons speak 해요체 throughout."""
    out = []
    for line, text in _korean_prose(ko_body, ko_line):
        for match in _FORMAL_ENDING.finditer(text):
            if _closed_by_bieup(match.group(1)):
                out.append(Claim(line + text.count("\n", 0, match.start()),
                                 Said(_("speech level: '%(ending)s' is 합쇼체; write 해요체 (…요)"), ending=match.group(0))))
                break
    return out


def sources_section(body: str, lang: str) -> bool:
    return re.search(rf"^## {re.escape(SOURCES_HEADING[lang])}\s*$", body, re.M) is not None


# ---- correctness sizes by alignment class ------------------------------
def _is_prime(n: int) -> bool:
    return n > 2 and all(n % d for d in range(2, int(n ** 0.5) + 1))


# Each class a learner's kernel may branch on; a spec's ``size_classes:`` names, for every class,
# one of its correctness sizes that has the property.
SIZE_CLASSES: dict[str, tuple[str, Callable[[dict[str, int]], bool]]] = {
    "one": ("a dimension equal to 1", lambda s: any(v == 1 for v in s.values())),
    "prime": ("a dimension that is an odd prime >= 11 (no vector width or tile divides it)",
              lambda s: any(_is_prime(v) and v >= 11 for v in s.values())),
    "mod4": ("every dimension a multiple of 4 but not of 8 somewhere (float4 paths on, ragged tiles)",
             lambda s: all(v % 4 == 0 for v in s.values()) and any(v % 8 == 4 for v in s.values())),
    "mod8": ("every dimension a multiple of 8, not of 32 somewhere (vector paths on, ragged 32/64 tiles)",
             lambda s: all(v % 8 == 0 for v in s.values()) and any(v % 32 for v in s.values())),
    "mod_tile": ("every dimension a multiple of 64 (whole tiles, no edge)",
                 lambda s: all(v % 64 == 0 for v in s.values())),
    "tile_plus_one": ("a dimension one past a multiple of 32 (a tile of one row or column)",
                      lambda s: any(v > 32 and v % 32 == 1 for v in s.values())),
    "tall_skinny": ("the largest dimension at least 16 times the smallest",
                    lambda s: min(s.values()) > 0 and max(s.values()) >= 16 * min(s.values())),
}


def size_class_claims(spec_raw: dict[str, Any]) -> list[str]:
    """Problems with a spec's ``size_classes`` (messages); [] when every class is covered."""
    correctness = [dict(s) for s in ((spec_raw.get("sizes") or {}).get("correctness") or []) if isinstance(s, dict)]
    listed = spec_raw.get("size_classes")
    if not isinstance(listed, dict):
        return [Said(_("size_classes is missing: list one correctness size for each class (%(classes)s)"),
                     classes=", ".join(SIZE_CLASSES))]
    problems: list[str] = []
    for name, (meaning, holds) in SIZE_CLASSES.items():
        size = listed.get(name)
        if not isinstance(size, dict):
            problems.append(Said(_("size_classes.%(name)s is missing (%(meaning)s)"), name=name, meaning=meaning))
        elif dict(size) not in correctness:
            problems.append(Said(_("size_classes.%(name)s %(size)s is not one of sizes.correctness"), name=name, size=size))
        elif not holds({k: int(v) for k, v in size.items()}):
            problems.append(Said(_("size_classes.%(name)s %(size)s does not have the property: %(meaning)s"),
                                 name=name, size=size, meaning=meaning))
    for name in listed:
        if name not in SIZE_CLASSES:
            problems.append(Said(_("size_classes.%(name)s: unknown class (known: %(classes)s)"), name=name,
                                 classes=", ".join(SIZE_CLASSES)))
    return problems


_IMAGE_TARGET = re.compile(r"!\[[^\]]*\]\((/static/img/lessons/[^)\s]+\.svg)\)")
_SVG_TEXT = re.compile(r"<(?:text|tspan)\b[^>]*>([^<]*)<")


def korean_figures(en_body: str, ko_body: str, ko_line: int, static_dir: Path) -> list[Claim]:
    """A figure with words has a Korean twin (NN-name.ko.svg) and ko.md shows it."""
    out = []
    en_targets = _IMAGE_TARGET.findall(en_body)
    ko_lines = ko_body.split("\n")
    ko_targets = [(n, m.group(1)) for n, line in enumerate(ko_lines) for m in _IMAGE_TARGET.finditer(line)]
    for en_target, (n, ko_target) in zip(en_targets, ko_targets, strict=False):
        path = static_dir / en_target[len("/static/"):]
        try:
            words = any(_words(t) for t in _SVG_TEXT.findall(path.read_text(encoding="utf-8")))
        except OSError:
            continue  # a missing file is the catalog's error
        twin = en_target[:-len(".svg")] + ".ko.svg"
        if words and ko_target != twin:
            out.append(Claim(ko_line + n, Said(_("figure %(figure)s has English words: ko.md must show its Korean twin %(twin)s"),
                                                  figure=en_target, twin=twin)))
        elif words:
            try:
                if not HANGUL.search(" ".join(_SVG_TEXT.findall((static_dir / twin[len("/static/"):]).read_text(encoding="utf-8")))):
                    out.append(Claim(ko_line + n, Said(_("%(twin)s has no Korean labels"), twin=twin)))
            except OSError:
                out.append(Claim(ko_line + n, Said(_("%(twin)s is missing"), twin=twin)))
    return out
