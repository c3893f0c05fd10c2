"""Korean lessons show the measured tables in Korean: every row label in kernels/results has a
Korean twin, and the rendered Korean table carries it."""
from __future__ import annotations

import json
import re

from app.core.config import PROJECT_ROOT
from app.lessons.measured import LABELS_KO, Measurement, render_measurement

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def _reference_entries():
    for path in sorted((PROJECT_ROOT / "kernels" / "results").glob("*-references.json")):
        yield from json.loads(path.read_text(encoding="utf-8"))["entries"]


def test_every_reference_label_has_a_korean_label():
    missing = {e["label"] for e in _reference_entries()} - set(LABELS_KO)
    assert not missing, missing
    assert all(HANGUL.search(ko) for ko in LABELS_KO.values())


def test_the_korean_table_shows_korean_row_labels():
    entries = [e for e in _reference_entries() if e["exercise"] == "gemm"][:3]
    ko = render_measurement(Measurement("NVIDIA H100", "2026-11-25", entries), "ko")
    en = render_measurement(Measurement("NVIDIA H100", "2026-11-25", entries), "en")
    rows = re.findall(r"<tr><td>([^<]*)</td>", ko)
    assert rows and all(HANGUL.search(r) for r in rows)
    assert entries[0]["label"] in en and entries[0]["label"] not in ko


def test_the_korean_ladder_page_shows_korean_notes():
    """NOTES.ko.md gives every rung 01-13 a Korean paragraph and the targets table; English elsewhere."""
    from app.ladder.content import load_content
    from app.ladder.page import page_context_for

    content = load_content(PROJECT_ROOT / "kernels" / "ladder")
    by_stem = {r.stem: r for r in content.rungs}
    for number in range(1, 14):
        rung = next(r for r in content.rungs if r.number == number)
        assert HANGUL.search(rung.notes_ko), rung.stem
    assert HANGUL.search(content.targets_ko)
    ko = page_context_for("ko", content, [], "site")
    en = page_context_for("en", content, [], "site")
    first_ko = next(r for r in ko["rungs"] if r["stem"] == "01_naive")["notes_html"]
    first_en = next(r for r in en["rungs"] if r["stem"] == "01_naive")["notes_html"]
    assert HANGUL.search(str(first_ko)) and not HANGUL.search(str(first_en))
    assert "01_naive" in by_stem and HANGUL.search(str(ko["targets_html"]))
