"""Start-up freezes its heap: a full garbage collection then walks only what
requests created, so it no longer stops the event loop for ~100 ms and every request in flight with it.
The timing itself is shown by `python -m app bench --signed-in`, not asserted here."""
from __future__ import annotations

import gc

from fastapi.testclient import TestClient

from app.factory import create_app
from tests.conftest import make_settings


def test_start_up_freezes_what_it_built_and_leaves_little_for_the_collector(tmp_path):
    gc.unfreeze()
    app = create_app(make_settings(tmp_path, freeze_heap=True))
    try:
        with TestClient(app) as client:
            assert client.get("/en/").status_code == 200
            frozen = gc.get_freeze_count()
            # everything start-up built (modules, catalog, templates) is out of the collector's walk;
            # what it still tracks is what requests made since, far fewer objects
            assert frozen > 50_000
            assert len(gc.get_objects()) < frozen / 4
    finally:
        gc.unfreeze()  # hand the objects back, so this test app can be collected like the others


def test_tests_and_debugging_can_turn_it_off(tmp_path):
    gc.unfreeze()
    with TestClient(create_app(make_settings(tmp_path))) as client:
        assert client.get("/en/").status_code == 200
        assert gc.get_freeze_count() == 0
