"""Achievement icons are our own SVG symbols (static/img/achievements.svg), one per achievement, so they
show on machines without an emoji font: the profile and the announcement use them."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from app.progress.registry import ACHIEVEMENTS
from app.templating import STATIC_DIR

SPRITE = STATIC_DIR / "img" / "achievements.svg"
SVG = "{http://www.w3.org/2000/svg}"


def test_every_achievement_has_a_symbol():
    root = ET.parse(SPRITE).getroot()
    symbols = {s.get("id"): s for s in root.iter(f"{SVG}symbol")}
    assert set(symbols) == {a.id for a in ACHIEVEMENTS}
    for symbol in symbols.values():
        assert symbol.get("viewBox") == "0 0 24 24" and symbol.get("stroke") == "currentColor"
        assert len(list(symbol)) >= 1  # drawn, not empty


def test_pages_use_the_sprite_not_emoji():
    from app.templating import make_environment

    env = make_environment(auto_reload=False)
    for name in ("accounts/profile.html", "accounts/_announce.html"):
        source = env.loader.get_source(env, name)[0]
        assert "/static/img/achievements.svg#" in source and ".icon }}" not in source
    script = (STATIC_DIR / "js" / "progress.js").read_text(encoding="utf-8")
    assert "achievements.svg#" in script and "textContent = a.icon" not in script
