"""A real HTTP server for an ASGI app on 127.0.0.1 (uvicorn in a thread), for the LTI tests: the tool
and the platform fetch each other's keys and call each other's services over real HTTP.

The listening socket is bound here and handed to uvicorn, so no other process (other test runs share
this machine) can take the port between choosing it and listening on it."""
from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn


def bound_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def url_of(sock: socket.socket) -> str:
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextlib.contextmanager
def serve(app, sock: socket.socket) -> Iterator[str]:
    config = uvicorn.Config(app, log_level="warning", loop="asyncio", lifespan="on", proxy_headers=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # a guard against a hung start, not a timing check
    while not server.started:  # the tool migrates its database at start-up
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
