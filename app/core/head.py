"""HEAD for every GET route: monitoring tools and link checkers ask with HEAD, and FastAPI's routes
answer only the methods they declare (HEAD got 405). The request runs as a GET and the answer keeps
its status and headers (Content-Length included) but sends no body, as RFC 9110 asks. A route that
declares HEAD itself is never reached as HEAD: this layer is outside the router."""
from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGetMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        finished = False

        async def send_headers_only(message: Message) -> None:
            nonlocal finished
            if finished:
                return  # what a streaming GET goes on producing is dropped; the server has ended the answer
            if message["type"] == "http.response.body":
                # The first body part ends the answer at once, so an event stream's HEAD does not hang.
                finished = True
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_headers_only)
