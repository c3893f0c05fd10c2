"""Levels (100 XP, then +50 each) and the twelve achievements."""
import pytest

from app.progress.registry import ACHIEVEMENTS, level_for_xp


@pytest.mark.parametrize("xp,level,into,need", [
    (0, 0, 0, 100), (99, 0, 99, 100), (100, 1, 0, 150), (249, 1, 149, 150), (250, 2, 0, 200), (450, 3, 0, 250),
])
def test_level_thresholds(xp, level, into, need):
    state = level_for_xp(xp, "en")
    assert (state.level, state.xp_into_level, state.xp_for_next) == (level, into, need)


def test_level_names_in_both_languages():
    assert level_for_xp(0, "en").name == "Beginner" and level_for_xp(0, "ko").name == "입문"
    assert level_for_xp(10**6, "en").name  # far levels still have a name


def test_twelve_achievements_with_both_languages():
    assert len(ACHIEVEMENTS) == 12
    assert len({a.id for a in ACHIEVEMENTS}) == 12
    for a in ACHIEVEMENTS:
        assert a.icon and a.name["ko"] and a.name["en"] and a.description["ko"] and a.description["en"]


@pytest.mark.parametrize("xp,level,en,ko", [
    (1749, 6, "Roofline Climber", "루프라인 등반가"),
    (1750, 7, "Kernel Artisan", "커널 장인"),  # the last named level
    (2200, 8, "Kernel Artisan 2", "커널 장인 2"),  # beyond the list: the last name, counted on from 2
    (2700, 9, "Kernel Artisan 3", "커널 장인 3"),
])
def test_levels_beyond_the_named_ones_are_numbered(xp, level, en, ko):
    assert (level_for_xp(xp, "en").level, level_for_xp(xp, "en").name, level_for_xp(xp, "ko").name) == (level, en, ko)
