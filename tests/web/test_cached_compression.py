"""Cached pages go compressed from the cache: a browser's Accept-Encoding gets brotli (or gzip where
brotli is not accepted), the bytes decompress to exactly the uncompressed page, and a page is
compressed once per coding, not on every request, signed out and signed in."""
from __future__ import annotations

import gzip

import brotli
import pytest
from fastapi.testclient import TestClient

from app.core import encodings
from app.factory import create_app
from tests.accounts.conftest import signup

LESSON = "/ko/lessons/naive-vs-tiled-gemm"


@pytest.fixture
def client(settings):
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture
def compressions(monkeypatch):
    calls = []
    real = encodings.compress

    def counting(body, coding):
        calls.append(coding)
        return real(body, coding)

    monkeypatch.setattr(encodings, "compress", counting)
    return calls


@pytest.mark.parametrize(("accept", "coding"), [
    ("gzip, deflate, br", "br"), ("gzip, deflate, br, zstd", "br"), ("gzip", "gzip"), ("br;q=0, gzip", "gzip"),
    ("gzip;q=0.5, br;q=0.4", "gzip"), ("*", "br"), ("identity", None)])
def test_the_coding_follows_accept_encoding(client, accept, coding):
    plain = client.get(LESSON, headers={"Accept-Encoding": "identity"})
    answer = client.get(LESSON, headers={"Accept-Encoding": accept})
    assert answer.status_code == 200 and answer.headers.get("content-encoding") == coding
    assert answer.headers["vary"] == "Accept-Encoding"
    # httpx undoes gzip and br itself; the page is the same page either way
    assert answer.content == plain.content


def test_pages_are_compressed_once_per_coding(client, compressions):
    for path in (LESSON, "/en/", "/en/ladder"):
        for _ in range(3):
            for accept in ("gzip, deflate, br", "gzip"):
                assert client.get(path, headers={"Accept-Encoding": accept}).status_code == 200
    assert sorted(compressions) == ["br", "br", "br", "gzip", "gzip", "gzip"]


def test_a_signed_in_reader_gets_the_cached_compressed_page(client, compressions):
    assert signup(client, "reader1").status_code == 303
    first = client.get(LESSON, headers={"Accept-Encoding": "gzip, deflate, br"})
    second = client.get(LESSON, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert first.headers["content-encoding"] == "br" and first.content == second.content
    assert "reader1" in second.text and second.headers["cache-control"] == "private, no-store"
    assert compressions.count("br") == 1


def test_the_stored_bytes_are_real_brotli_and_gzip():
    body = "<p>행렬 곱셈</p>".encode() * 200
    assert brotli.decompress(encodings.compress(body, "br")) == body
    assert gzip.decompress(encodings.compress(body, "gzip")) == body
