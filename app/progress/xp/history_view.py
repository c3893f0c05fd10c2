"""The XP history as a reader sees it: what each ledger row paid for, in words.

A ledger row names its deed by ``source`` and ``source_id`` ("lesson" + a slug, "exercise_tier" +
"gemm:beat_tiled", "adjustment" + "submission:42:override:7"); those stay in the database and the
exports. The page shows the source's label (app/core/vocabulary.py) and the deed by its title:
the lesson's number and title, the exercise's title, the speed tier in words, the submission.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from app.core import vocabulary as vocab
from app.i18n import gettext_for


class _Exercises(Protocol):
    def get(self, exercise_id: str) -> Any: ...


@dataclass
class XpRow:
    entry: Any  # the ledger's XpEntry (created_at, amount, voided, source, source_id)
    label: str  # what kind of deed: "Lesson completed", "Speed tier", ...
    explain: str
    subject: str  # which one: "04 · Tiling", "GEMM — 1.05× faster than Tiled reference", "Submission #42"


def _exercise_title(exercises: _Exercises, exercise_id: str, lang: str) -> tuple[str, Any]:
    info = exercises.get(exercise_id)
    if info is None:
        return exercise_id, None
    return info.title.get(lang) or info.title.get("en") or exercise_id, info


def deed_subject(source: str, source_id: str, lang: str, lessons: dict[str, str], exercises: _Exercises) -> str:
    """The deed of one ledger row by its title; never the slug or id when the title is known."""
    _ = gettext_for(lang)
    if source == "lesson":
        return lessons.get(source_id) or _("a lesson no longer in the course")
    if source == "exercise_pass":
        return _exercise_title(exercises, source_id, lang)[0]
    if source == "exercise_tier":
        exercise_id, _sep, tier_id = source_id.partition(":")
        title, info = _exercise_title(exercises, exercise_id, lang)
        tier = next((t for t in info.tiers if t.id == tier_id), None) if info is not None else None
        if tier is not None:
            return f"{title} — {vocab.tier_label(tier.against, tier.speedup, lang)}"
        return title
    if source == "adjustment":
        parts = source_id.split(":")
        if len(parts) >= 2 and parts[0] == "submission" and parts[1].isdigit():
            return _("Submission #%(id)s") % {"id": parts[1]}
    return ""


def history_rows(entries: Iterable[Any], lang: str, lessons: dict[str, str], exercises: _Exercises) -> list[XpRow]:
    """``lessons``: slug -> "NN · title" in ``lang``; ``exercises``: the app's ExerciseInfoCache."""
    return [XpRow(e, vocab.label(vocab.XP_SOURCE, e.source, lang), vocab.explain(vocab.XP_SOURCE, e.source, lang),
                  deed_subject(e.source, e.source_id, lang, lessons, exercises)) for e in entries]
