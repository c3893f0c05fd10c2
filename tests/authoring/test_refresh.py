"""The running server shows an edited lesson on the next page load after the catalog's check
interval (MKC_CATALOG_CHECK_INTERVAL), with the page cache on, and no restart."""
from __future__ import annotations

import os
import time

from fastapi.testclient import TestClient

from app.core.services import app_services
from app.factory import create_app
from app.lessons.catalog import Catalog

INTERVAL = 0.3


def touch_later(path, seconds: float = 5.0) -> None:
    """Move the mtime on, so the change is seen even where file times are coarse."""
    stamp = time.time() + seconds
    os.utime(path, (stamp, stamp))


def test_edits_show_on_the_next_load_after_the_interval(tmp_path, lessons_dir, write_lesson, make_settings):
    folder = write_lesson(lessons_dir, 1, "living")
    settings = make_settings(tmp_path, lessons_dir=lessons_dir, catalog_check_interval=INTERVAL)
    assert settings.debug is False  # the page cache is on, as in production
    with TestClient(create_app(settings)) as client:
        assert "Body living." in client.get("/en/lessons/living").text
        en = folder / "en.md"
        en.write_text(en.read_text().replace("Body living.", "A rewritten paragraph.").replace(
            "English title living", "A new title"), encoding="utf-8")
        touch_later(en)
        time.sleep(INTERVAL + 0.1)
        page = client.get("/en/lessons/living").text
        assert "A rewritten paragraph." in page and "Body living." not in page
        assert "A new title" in client.get("/en/").text

        # A new lesson folder and a changed lesson.yaml are picked up the same way.
        write_lesson(lessons_dir, 2, "newcomer")
        meta = folder / "lesson.yaml"
        meta.write_text(meta.read_text().replace("minutes: 7", "minutes: 42"), encoding="utf-8")
        touch_later(meta)
        time.sleep(INTERVAL + 0.1)
        assert client.get("/en/lessons/newcomer").status_code == 200
        assert "~42 min" in client.get("/en/lessons/living").text


def test_within_the_interval_the_cached_page_is_served(tmp_path, lessons_dir, write_lesson, make_settings):
    folder = write_lesson(lessons_dir, 1, "steady")
    settings = make_settings(tmp_path, lessons_dir=lessons_dir, catalog_check_interval=60.0)
    with TestClient(create_app(settings)) as client:
        assert "Body steady." in client.get("/en/lessons/steady").text
        en = folder / "en.md"
        en.write_text(en.read_text().replace("Body steady.", "Changed."), encoding="utf-8")
        touch_later(en)
        # One check per interval keeps page loads cheap: the edit waits for the next check.
        assert "Body steady." in client.get("/en/lessons/steady").text
        app_services(client.app).get(Catalog)._files.expire()  # as if the interval had passed
        assert "Changed." in client.get("/en/lessons/steady").text
