"""Request bodies are capped while they are read, and signed-out callers are refused before any body
byte is read. Before the fix four parallel 180 MB POSTs to the comments
API took a server from 196 MB to 2.5 GB without signing in."""
from __future__ import annotations

import socket
import threading

import pytest

from app.bench.submissions_server import Server
from app.core.bodies import StrictJSONRoute
from tests.accounts.conftest import LESSON, page_csrf

COMMENTS = f"/api/lessons/{LESSON}/comments"


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


def _raw_post(port: int, path: str, headers: dict[str, str], body_chunks, read_timeout: float = 20) -> bytes:
    """POST over a plain socket, sending the body in chunks until the server answers or hangs up."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=read_timeout)
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    sock.sendall(head.encode() + b"\r\n")
    try:
        for chunk in body_chunks:
            sock.sendall(chunk)
    except OSError:
        pass  # the server answered and closed while we were still sending: what we want
    answer = b""
    try:
        while True:  # the head, then as much body as it declares
            head, sep, body = answer.partition(b"\r\n\r\n")
            if sep:
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                if len(body) >= length:
                    break
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    finally:
        sock.close()
    return answer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("bodies"), dispatcher_enabled="false").start()
    yield srv
    srv.stop()


def test_a_huge_declared_body_is_refused_before_it_is_read_in_the_readers_language(server):
    answer = _raw_post(server.port, COMMENTS, {"Content-Type": "application/json", "Content-Length": str(180 << 20),
                                                "Accept-Language": "ko"}, [b"{" + b" " * 1024])
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert "요청이".encode() in answer or b"body_too_large" in answer


def test_streamed_bodies_without_length_stop_at_the_cap_and_memory_stays_flat(server):
    """Chunked uploads (no Content-Length) of 40 MB each, four at once, signed in by a bogus token so the
    request reaches the route: the server reads at most the route's cap of each and answers 413."""
    pid = _children(server.proc.pid)[0] if _children(server.proc.pid) else server.proc.pid
    before = _rss_kib(pid)
    piece = b"a" * 65536

    def chunked(total_mib: int):
        for _ in range(total_mib * 16):
            yield f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        yield b"0\r\n\r\n"

    answers: list[bytes] = []
    threads = [threading.Thread(target=lambda: answers.append(_raw_post(
        server.port, COMMENTS, {"Content-Type": "application/json", "Transfer-Encoding": "chunked",
                                "Authorization": "Bearer nope"}, chunked(40)))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    after = _rss_kib(pid)
    assert len(answers) == 4
    for answer in answers:
        assert answer.split(b"\r\n", 1)[0] in (b"HTTP/1.1 413 Request Entity Too Large", b"HTTP/1.1 413 Content Too Large",
                                               b"HTTP/1.1 401 Unauthorized"), answer[:200]
    assert after - before < 60 * 1024, (before, after)  # 4 × 40 MB would be 160 MB


def test_signed_out_api_write_is_refused_before_the_body_is_read(server):
    # 1,000 of 60,000 declared bytes and the rest never sent: a server waiting for the body never
    # answers, and the socket's read timeout fails this test; any answer at all came before the body
    answer = _raw_post(server.port, COMMENTS, {"Content-Type": "application/json", "Content-Length": "60000"},
                       [b"x" * 1000], read_timeout=10)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:300]


def test_limits_per_route(user_client, app):
    csrf = page_csrf(user_client)
    headers = {"X-CSRF-Token": csrf, "Accept-Language": "en"}
    ok = user_client.post(COMMENTS, json={"body": "가" * 4000, "lang": "ko"}, headers=headers)
    assert ok.status_code == 201, ok.text  # 4,000 Korean characters fit the comment cap
    big = user_client.post(COMMENTS, content=b'{"body": "' + b"a" * (64 * 1024) + b'"}',  # the 64 KiB comment cap
                           headers={**headers, "Content-Type": "application/json"})
    assert big.status_code == 413 and big.json()["error"] == "body_too_large"
    assert big.json()["message"] == "The request is too large."
    merge = user_client.post("/api/progress/merge", content=b"{" + b" " * (40 * 1024) + b"}",
                             headers={**headers, "Content-Type": "application/json"})
    assert merge.status_code == 413
    ko = user_client.post("/ko/profile/timezone", data={"csrf_token": csrf, "tz": "x" * 9000},
                          headers={"Accept-Language": "ko"})
    assert ko.status_code == 413 and "요청" in ko.text


def _form_of(csrf: str, size: int) -> bytes:
    head = f"csrf_token={csrf}&tz=".encode()
    return head + b"x" * (size - len(head))


def test_the_default_cap_is_8_kib(user_client):
    """A route that names no limit of its own (a profile form) takes bodies up to 8 KiB (8,192 bytes):
    one byte more is refused before the route runs, one byte fewer reaches it (which refuses the
    made-up time zone with its own 400)."""
    csrf = page_csrf(user_client)
    form = {"Content-Type": "application/x-www-form-urlencoded", "Accept-Language": "en"}
    at_cap = user_client.post("/en/profile/timezone", content=_form_of(csrf, 8192), headers=form)
    assert at_cap.status_code == 400 and "413" not in at_cap.text, at_cap.text[:300]
    over = user_client.post("/en/profile/timezone", content=_form_of(csrf, 8193), headers=form)
    assert over.status_code == 413 and "The request is too large." in over.text


def test_every_route_decodes_json_strictly_and_has_a_body_cap(app):
    """Every body-reading route of ours comes from make_router (FastAPI's own docs routes read no body)."""
    from fastapi.routing import APIRoute

    own = {"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", "/healthz"}
    routers = [r.original_router for r in app.router.routes if hasattr(r, "original_router")]
    loose = [r.path for r in app.router.routes if isinstance(r, APIRoute) and not isinstance(r, StrictJSONRoute)
             and r.path not in own]
    assert routers and loose == []
    for router in routers:
        assert router.route_class is StrictJSONRoute
        assert router.max_body_size == 8 * 1024


def test_each_application_refuses_early_by_its_own_routes_only():
    """The early refusal reads the served application's routes, not every router ever imported: a
    route with a 100-byte cap on one app is unknown to the middleware of another app in the process."""
    from fastapi import FastAPI

    from app.core.bodies import make_router, routes_of
    from app.routes.bodies import EarlyRefusalMiddleware

    small = make_router(max_body_size=100)

    @small.post("/api/echo")
    async def echo() -> dict:
        return {"ok": True}

    capped, plain = FastAPI(), FastAPI()
    capped.include_router(small)
    assert [route.path for route in routes_of(capped)] == ["/api/echo"] and routes_of(plain) == []

    def scope(app):
        return {"type": "http", "method": "POST", "path": "/api/echo", "root_path": "", "query_string": b"",
                "headers": [], "app": app}

    found = EarlyRefusalMiddleware(capped)._route(scope(capped))
    assert found is not None and found.max_body_size == 100
    assert EarlyRefusalMiddleware(plain)._route(scope(plain)) is None
