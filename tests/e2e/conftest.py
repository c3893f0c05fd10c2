"""A real uvicorn server on a free localhost port, and Debian's Chromium through Playwright."""
from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import PROJECT_ROOT

ARTIFACTS = PROJECT_ROOT / "test-artifacts"


# server_url and browser live in tests/conftest.py: one Playwright per test session (a second sync
# Playwright started while the first is open fails with "Sync API inside the asyncio loop").


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
