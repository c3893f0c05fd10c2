"""Hardening tests reuse the account helpers (an app on a real SQLite file, signed-in clients)."""
from tests.accounts.conftest import app, new_client, user_client  # noqa: F401  (fixtures)
