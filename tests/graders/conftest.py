"""Fixtures for the graders tests: the same running-app fixture as the panel tests."""
from tests.panel.conftest import app_client  # noqa: F401  (a pytest fixture, re-exported)
