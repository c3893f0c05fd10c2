"""Pages are compressed and static assets cached as their URLs allow."""
from __future__ import annotations

import gzip

import pytest
from fastapi.testclient import TestClient

from app.factory import create_app


@pytest.fixture
def client(settings):
    with TestClient(create_app(settings)) as c:
        yield c


def test_pages_and_json_are_gzipped_when_the_browser_accepts_it(client):
    for path in ("/en/lessons/naive-vs-tiled-gemm", "/ko/ladder", "/openapi.json"):
        raw = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert raw.status_code == 200 and raw.headers.get("content-encoding") == "gzip", path
        assert "content-security-policy" in raw.headers  # the security headers survive compression
    plain = client.get("/en/ladder", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers


def test_the_ladder_page_travels_small(client):
    page = client.get("/en/ladder", headers={"Accept-Encoding": "gzip"})
    size = len(gzip.compress(page.content))  # what went over the wire, recompressed the same way
    assert size < len(page.content) / 3


def test_versioned_static_urls_are_immutable_and_bare_ones_revalidate(client):
    html = client.get("/en/").text
    import re

    versioned = re.search(r'href="(/static/css/site\.css\?v=[^"]+)"', html).group(1)
    cached = client.get(versioned)
    assert cached.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert client.get("/static/css/site.css").headers["cache-control"] == "public, max-age=300"
    assert client.get("/static/nope.css").status_code == 404
