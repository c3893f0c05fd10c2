"""Shared fixtures: an app on a temporary SQLite file, and lesson folders built on the fly."""
from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

# Shared test helpers are imported as tests.<area>.<module>; tests/ has no __init__.py, so the
# repository root must be importable for that (pytest itself only puts tests/ on sys.path).
_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

# The web stack is imported lazily, inside the fixtures: the GPU machine has numpy, cupy and
# pytest but no pydantic/FastAPI, and `pytest -m gpu` must still collect there.
REAL_LESSONS = Path(__file__).resolve().parents[1] / "lessons"


def make_settings(tmp_path: Path, **overrides):
    from app.core.config import Settings

    values: dict[str, Any] = dict(
        data_dir=tmp_path / "data",
        database_url=f"sqlite:///{(tmp_path / 'data' / 'test.db').as_posix()}",
        lessons_dir=REAL_LESSONS,
        results_dir=tmp_path / "results",
        catalog_check_interval=0.0,
        freeze_heap=False,  # a frozen app is never collected: hundreds of test apps would pile up
    )
    values.update(overrides)
    # _env_file=None: a developer's .env must not leak into tests. (In the dict because pydantic-settings'
    # init-only arguments are not in the signature a type checker sees without its plugin.)
    return Settings(**{"_env_file": None, **values})


_STARTING_GPU_BINDING = os.environ.get("CUDA_VISIBLE_DEVICES")  # before any test app bound the process


@pytest.fixture(autouse=True)
def _gpu_binding_kept():
    """A test app's dispatcher binds its process to a GPU (CUDA_VISIBLE_DEVICES, as a server does);
    each test ends with the binding this run began with (module-scoped apps bind before the first
    test of their module starts, hence the value read at import)."""
    yield
    if _STARTING_GPU_BINDING is None:
        os.environ.pop("CUDA_VISIBLE_DEVICES", None)
    else:
        os.environ["CUDA_VISIBLE_DEVICES"] = _STARTING_GPU_BINDING
    lanes = sys.modules.get("app.submissions.lanes")
    if lanes is not None:
        lanes._bound_here = None  # type: ignore[attr-defined]


@pytest.fixture
def settings(tmp_path, monkeypatch):
    for name in ("MKC_DATABASE_URL", "MKC_DATA_DIR", "MKC_LESSONS_DIR", "MKC_SHOW_DRAFTS", "MKC_DEFAULT_LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    return make_settings(tmp_path)


@pytest.fixture
def client(settings):
    from fastapi.testclient import TestClient

    from app.factory import create_app

    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client


EN_FILLER = "Each thread reads one value and the warp moves on to the next row of the matrix. " * 60
KO_FILLER = "각 스레드는 값 하나를 읽고 워프는 행렬의 다음 행으로 넘어가요. " * 60


def write_lesson(root: Path, number: int, slug: str, *, yaml_text: str | None = None,
                 ko: str | None = "default", en: str | None = "default", status: str = "published") -> Path:
    """Create lessons/NN-slug with a valid lesson.yaml and both texts unless told otherwise."""
    folder = root / f"{number:02d}-{slug}"
    folder.mkdir(parents=True, exist_ok=True)
    if yaml_text is None:
        yaml_text = textwrap.dedent(f"""\
            order: {number}
            slug: {slug}
            status: {status}
            tags: [test, {slug}]
            minutes: 7
            exercise: null
            xp: 10
            links:
              - url: https://example.org/{slug}
                title: {{en: "Reference for {slug}", ko: "{slug} 참고 자료"}}
            """)
    (folder / "lesson.yaml").write_text(yaml_text, encoding="utf-8")
    # By default a lesson that passes `lessons check` (a published lesson failing it is held back as
    # a draft): 900+ words of English, Korean of equal length, a sources section in each language.
    defaults = {
        "ko": f"---\ntitle: 한국어 제목 {slug}\nsummary: 한국어 요약.\n---\n## 첫 절\n\n본문 {slug}.\n\n{KO_FILLER}\n\n"
              f"## 출처와 더 읽을거리\n\n- [{slug} 참고 자료](https://example.org/{slug}): 시험용 예시예요.\n",
        "en": f"---\ntitle: English title {slug}\nsummary: An English summary.\n---\n## First section\n\nBody {slug}.\n\n"
              f"{EN_FILLER}\n\n## Sources and further reading\n\n- [Reference for {slug}](https://example.org/{slug}): "
              f"an example for tests.\n",
    }
    for lang, content in (("ko", ko), ("en", en)):
        if content is None:
            continue
        (folder / f"{lang}.md").write_text(defaults[lang] if content == "default" else content, encoding="utf-8")
    return folder


@pytest.fixture
def lessons_dir(tmp_path) -> Path:
    root = tmp_path / "lessons"
    root.mkdir()
    return root


@pytest.fixture(name="make_settings")
def make_settings_fixture():
    """The make_settings function, for tests that build several apps."""
    return make_settings


@pytest.fixture(name="write_lesson")
def write_lesson_fixture():
    return write_lesson


# ---- a real PostgreSQL (tests/pg.py): one server per session, a fresh database per test ----

@pytest.fixture(scope="session")
def pg_server():
    """The session's PostgreSQL server; skips (fails in CI) where PostgreSQL is not installed."""
    from tests.pg import start_server

    server = start_server()
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server, request):
    """SQLAlchemy URL of a fresh, empty PostgreSQL database for this test (dropped afterwards)."""
    url = pg_server.create_database(request.node.name)
    yield url
    pg_server.drop_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """The same test on a SQLite file and on a real PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{(tmp_path / 'data' / 'test.db').as_posix()}"
    else:
        yield request.getfixturevalue("pg_url")


@pytest.fixture
def migrated_db(db_url):
    """A session on a database migrated to head: SQLite and PostgreSQL (``db_url``)."""
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import upgrade_to_head

    engine = make_engine(db_url)
    upgrade_to_head(engine)
    with make_session_factory(engine)() as session:
        yield session
    engine.dispose()


# ---- a real server and Debian's Chromium, shared by every browser test (tests/e2e, tests/hardening) ----
# One Playwright per session: a second sync Playwright started while another is open fails.
CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def server_url(tmp_path_factory):
    from app.bench.submissions_server import Server

    server = Server(tmp_path_factory.mktemp("e2e-data")).start()
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("Debian's Chromium is not installed at /usr/bin/chromium (apt-get install chromium fonts-noto-cjk)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield browser
        browser.close()
