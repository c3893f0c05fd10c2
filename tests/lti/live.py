"""A real HTTP server for an ASGI app on 127.0.0.1 (uvicorn in a thread), for the LTI tests: the tool
and the platform fetch each other's keys and call each other's services over real HTTP."""
from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(app, port: int | None = None) -> Iterator[str]:
    port = port or free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", loop="asyncio",
                            lifespan="on", proxy_headers=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(600):  # until it listens (at most 60 s: the tool migrates its database at start-up)
        if server.started:
            break
        time.sleep(0.1)
    else:
        raise RuntimeError("the server did not start")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
