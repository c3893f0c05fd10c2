"""The ladder's texts: rung files (headers parsed by kernels/ladder/rungs.py), their bilingual
descriptions (kernels/ladder/rungs.yaml) and each rung's paragraph of kernels/ladder/NOTES.md.

Loaded once per change of any of those files (mtime check), so an edited rung shows on the next
page load without a restart. Nothing here needs CuPy or a GPU.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from app.core.filecache import FileCache, listing
from app.ladder.headers import HEADERS_KO_FILE, localized_source, parse_headers
from kernels.ladder.rungs import Rung, discover

DESCRIPTIONS_FILE = "rungs.yaml"
NOTES_FILE = "NOTES.md"
NOTES_KO_FILE = "NOTES.ko.md"  # Korean paragraphs (## 단계별 …, ## 목표); a missing one falls back to English
# NOTES.md keeps one paragraph per rung under this heading, each starting with **NN_stem**.
_RUNG_SECTION = re.compile(r"^## Rung by rung\b.*?$(.*?)(?=^## |\Z)", re.M | re.S)
_RUNG_PARAGRAPH = re.compile(r"^\*\*(\d\d_[a-z0-9_]+)\*\*", re.M)
_TARGETS_SECTION = re.compile(r"^## Targets\s*$(.*?)(?=^## |\Z)", re.M | re.S)
_RUNG_SECTION_KO = re.compile(r"^## 단계별\b.*?$(.*?)(?=^## |\Z)", re.M | re.S)
_TARGETS_SECTION_KO = re.compile(r"^## 목표\s*$(.*?)(?=^## |\Z)", re.M | re.S)


@dataclass(frozen=True)
class RungText:
    rung: Rung
    title: dict[str, str]          # {"ko": ..., "en": ...}
    teaches: dict[str, str]
    notes_markdown: str            # English, from NOTES.md ("" when the rung has no paragraph)
    notes_ko: str = ""             # Korean, from NOTES.ko.md ("" falls back to notes_markdown)
    header_ko: str = ""            # Korean title line and prose of the source's header (headers.ko.md)

    def source(self, lang: str) -> str:
        """The rung's source as the page in ``lang`` shows it (Korean: the header in Korean)."""
        return localized_source(self.rung.source, self.header_ko) if lang == "ko" else self.rung.source

    @property
    def number(self) -> int:
        return self.rung.number

    @property
    def stem(self) -> str:
        return self.rung.stem

    @property
    def anchor(self) -> str:
        return f"rung-{self.rung.number:02d}"


@dataclass(frozen=True)
class LadderContent:
    rungs: list[RungText]
    targets_markdown: str          # NOTES.md's "Targets" section (English), "" when absent
    targets_ko: str = ""           # NOTES.ko.md's "목표" section, "" falls back to English

    def select(self, first: int, last: int) -> list[RungText]:
        return [r for r in self.rungs if first <= r.number <= last]


def load_descriptions(path: Path) -> dict[str, dict[str, Any]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return data if isinstance(data, dict) else {}


def notes_paragraphs(text: str, section_re: re.Pattern[str] = _RUNG_SECTION) -> dict[str, str]:
    """{stem: markdown} for each **NN_stem** paragraph of the "Rung by rung" section."""
    section = section_re.search(text)
    if not section:
        return {}
    body = section.group(1)
    starts = list(_RUNG_PARAGRAPH.finditer(body))
    out = {}
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(body)
        out[match.group(1)] = body[match.start():end].strip()
    return out


def _fallback_text(value: object, rung: Rung) -> dict[str, str]:
    """A missing language falls back to the other one, and both to the rung header's summary."""
    value = value if isinstance(value, dict) else {}
    en = str(value.get("en") or value.get("ko") or rung.title)
    ko = str(value.get("ko") or en)
    return {"en": en, "ko": ko}


def load_content(ladder_dir: Path) -> LadderContent:
    descriptions = load_descriptions(ladder_dir / DESCRIPTIONS_FILE)
    notes_path = ladder_dir / NOTES_FILE
    notes = notes_path.read_text(encoding="utf-8") if notes_path.is_file() else ""
    paragraphs = notes_paragraphs(notes)
    targets = _TARGETS_SECTION.search(notes)
    ko_path = ladder_dir / NOTES_KO_FILE
    notes_ko = ko_path.read_text(encoding="utf-8") if ko_path.is_file() else ""
    paragraphs_ko = notes_paragraphs(notes_ko, _RUNG_SECTION_KO)
    targets_ko = _TARGETS_SECTION_KO.search(notes_ko)
    headers_path = ladder_dir / HEADERS_KO_FILE
    headers_ko = parse_headers(headers_path.read_text(encoding="utf-8")) if headers_path.is_file() else {}
    rungs = []
    for rung in discover(ladder_dir) if ladder_dir.is_dir() else []:
        entry = descriptions.get(rung.stem) or {}
        rungs.append(RungText(rung=rung, title=_fallback_text(entry.get("title"), rung),
                              teaches=_fallback_text(entry.get("teaches"), rung),
                              notes_markdown=paragraphs.get(rung.stem, ""), notes_ko=paragraphs_ko.get(rung.stem, ""),
                              header_ko=headers_ko.get(rung.stem, "")))
    return LadderContent(rungs=rungs, targets_markdown=targets.group(1).strip() if targets else "",
                         targets_ko=targets_ko.group(1).strip() if targets_ko else "")


class ContentStore:
    """load_content(), computed again when a rung file, rungs.yaml, NOTES(.ko).md or headers.ko.md
    changes (the folder's own mtime covers a rung file added or removed)."""

    def __init__(self, ladder_dir: Path):
        self.ladder_dir = ladder_dir
        self._files: FileCache[Path, LadderContent] = FileCache(self._watched, load_content)

    def _watched(self, ladder_dir: Path) -> list[Path]:
        return [*listing(ladder_dir, "[0-9][0-9]_*.cu"),
                *(ladder_dir / name for name in (DESCRIPTIONS_FILE, NOTES_FILE, NOTES_KO_FILE, HEADERS_KO_FILE))]

    def get(self) -> LadderContent:
        return self._files.get(self.ladder_dir)
