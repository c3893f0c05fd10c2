"""HEAD is answered wherever GET is (monitoring tools and link checkers use it): the same status and
headers as GET, no body; a path that only takes POST still says 405."""
from __future__ import annotations

import urllib.request

import pytest
from fastapi.testclient import TestClient

from app.factory import create_app

PATHS = ["/healthz", "/", "/en/", "/ko/", "/en/lessons/naive-vs-tiled-gemm", "/ko/ladder", "/openapi.json",
         "/en/signin", "/static/css/site.css"]


@pytest.fixture
def client(settings):
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.mark.parametrize("encoding", ["identity", "gzip"])
def test_head_answers_like_get_without_a_body(client, encoding):
    for path in PATHS:
        get = client.get(path, headers={"Accept-Encoding": encoding}, follow_redirects=False)
        head = client.head(path, headers={"Accept-Encoding": encoding}, follow_redirects=False)
        assert head.status_code == get.status_code and head.status_code in (200, 302, 303, 307), path
        assert head.content == b"", path
        for name in ("content-type", "content-length", "content-encoding", "location"):
            assert head.headers.get(name) == get.headers.get(name), (path, name)


def test_head_of_a_missing_page_is_404_and_a_post_only_path_is_405(client):
    assert client.head("/en/no-such-page").status_code == 404
    refused = client.head("/signout")
    assert refused.status_code == 405 and refused.content == b""


def test_head_over_real_http(server_url):
    for path in ("/healthz", "/en/lessons/naive-vs-tiled-gemm"):
        with urllib.request.urlopen(urllib.request.Request(server_url + path, method="HEAD"), timeout=30) as answer:
            assert answer.status == 200 and answer.read() == b""
            assert int(answer.headers["Content-Length"]) > 0
