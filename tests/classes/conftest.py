"""A migrated database (SQLite and PostgreSQL) and a few accounts, for the classes' service tests."""
from __future__ import annotations

import pytest


@pytest.fixture
def db(db_url):
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import upgrade_to_head

    engine = make_engine(db_url)
    upgrade_to_head(engine)
    with make_session_factory(engine)() as session:
        yield session
    engine.dispose()


@pytest.fixture
def make_user(db):
    from app.accounts.models import User

    def make(name: str, role: str = "learner", tz: str = "UTC") -> User:
        user = User(username=name, username_key=name.casefold(), password_hash="x", role=role, tz=tz)
        db.add(user)
        db.flush()
        return user
    return make
