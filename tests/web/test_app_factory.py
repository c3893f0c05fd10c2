"""The factory builds an app on its own SQLite file, migrated, in WAL mode, with a stored key."""
import stat

from fastapi.testclient import TestClient
from sqlalchemy import select, text

from app.core.migrate import current_revision, head_revision
from app.core.services import app_services
from app.factory import create_app
from app.lessons.models import LessonView


def test_start_creates_database_and_secret_key(tmp_path, make_settings):
    settings = make_settings(tmp_path)
    app = create_app(settings)
    assert not (tmp_path / "data").exists(), "building the app must not touch the disk"
    with TestClient(app) as client:
        assert client.get("/healthz").json() == {"ok": True}
        assert (tmp_path / "data" / "test.db").is_file()
        key_file = tmp_path / "data" / "secret_key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert len(app_services(app).secret_key) >= 40
        assert current_revision(app_services(app).engine) == head_revision()
        with app_services(app).engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_secret_key_is_stable_across_starts(tmp_path, make_settings):
    settings = make_settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        first = app_services(client.app).secret_key
    with TestClient(create_app(settings)) as client:
        assert app_services(client.app).secret_key == first


def test_configured_secret_key_is_used_and_not_written(tmp_path, make_settings):
    settings = make_settings(tmp_path, secret_key="from-the-environment")
    with TestClient(create_app(settings)) as client:
        assert app_services(client.app).secret_key == "from-the-environment"
    assert not (tmp_path / "data" / "secret_key").exists()


def test_lesson_views_are_counted_in_the_database(tmp_path, make_settings):
    settings = make_settings(tmp_path)
    app = create_app(settings)
    with TestClient(app) as client:
        for _ in range(3):
            assert client.get("/ko/lessons/naive-vs-tiled-gemm").status_code == 200
        assert client.get("/en/lessons/naive-vs-tiled-gemm").status_code == 200
    # Leaving the client runs shutdown, which flushes the pending tallies.
    engine = app_services(create_app(settings)).engine
    with engine.connect() as conn:
        views = select(LessonView.lang, LessonView.views).where(LessonView.slug == "naive-vs-tiled-gemm")
        rows = {(r.lang, r.views) for r in conn.execute(views)}
    assert rows == {("ko", 3), ("en", 1)}


def test_env_prefix_configures_settings(monkeypatch, tmp_path):
    from app.core.config import Settings

    monkeypatch.setenv("MKC_SITE_NAME", "Kernel School")
    monkeypatch.setenv("MKC_DATABASE_URL", f"sqlite:///{tmp_path}/x.db")
    settings = Settings(_env_file=None)
    assert settings.site_name == "Kernel School"
    assert settings.resolved_database_url.endswith("/x.db")
