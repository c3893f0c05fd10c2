"""Models and migrations agree: autogenerate on a migrated database finds nothing to do."""
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app.core.db import make_engine
from app.core.migrate import current_revision, head_revision, include_name, upgrade_to_head
from app.models import Base


def test_models_match_migrations(db_url):
    """On SQLite and on a real PostgreSQL (the cluster database)."""
    engine = make_engine(db_url)
    upgrade_to_head(engine)
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "render_as_batch": True,
                                                         "include_name": include_name})
        diff = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert diff == []


def test_upgrade_is_idempotent_and_reaches_head(db_url):
    engine = make_engine(db_url)
    upgrade_to_head(engine)
    upgrade_to_head(engine)
    assert current_revision(engine) == head_revision() is not None
    engine.dispose()


def test_cli_migrate(tmp_path):
    import os
    import subprocess
    import sys

    from app.core.config import PROJECT_ROOT

    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path / "d"), MKC_DATABASE_URL="")
    result = subprocess.run([sys.executable, "-m", "app", "migrate"], cwd=PROJECT_ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "d" / "app.db").is_file()
    assert head_revision() in result.stdout
