"""app/lessons/exercises.py: the pages read exercise specs through the engine's loader."""
from __future__ import annotations

import shutil

from app.core.config import PROJECT_ROOT
from app.lessons.exercises import ExerciseInfoCache
from app.progress import xp
from kernels.engine import load_exercise


def test_the_cache_gives_the_engines_exercise_and_none_for_a_broken_spec(tmp_path):
    shutil.copytree(PROJECT_ROOT / "kernels" / "gemm", tmp_path / "gemm")
    cache = ExerciseInfoCache(tmp_path, recheck_s=0.0)
    info = cache.get("gemm")
    assert info is not None and info == load_exercise("gemm", root=tmp_path)
    assert info.title["en"] and info.pass_xp > 0 and info.tiers
    assert cache.get("nothing-here") is None
    spec = tmp_path / "gemm" / "spec.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("xp:", "xp_typo:", 1), encoding="utf-8")
    assert cache.get("gemm") is None  # the engine rejects it; pages show no exercise card


def test_a_speed_tier_row_names_the_exercise_and_the_tier():
    cache = ExerciseInfoCache(PROJECT_ROOT / "kernels")
    tier = cache.get("gemm").tiers[0]
    text = xp.deed_subject("exercise_tier", f"gemm:{tier.id}", "en", {}, cache)
    assert text.startswith(cache.get("gemm").title["en"] + " — ")
    assert xp.deed_subject("exercise_tier", "gemm:no_such_tier", "en", {}, cache) == cache.get("gemm").title["en"]
