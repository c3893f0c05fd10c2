"""Live state changes: an in-process signal plus a server-sent-event stream.

The database is the truth (the dispatcher may live in another process), so the stream re-reads
the row; the in-process signal only makes it re-read at once instead of at the next poll.
The stream sends ``event: state`` with the submission's JSON on every change, a comment every
15 s to keep proxies from closing it, and ends after ``done`` or ``awaiting_gpu`` (a browser
reconnects or polls ``GET /api/submissions/{id}`` after that).
"""
from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from app.submissions import states

KEEPALIVE_SECONDS = 15.0
POLL_SECONDS = 0.5
END_STATES = (states.DONE, states.AWAITING_GPU, states.CANCELLED)
# One watching stream: the loop it runs on and the event that wakes it.
Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]
# A submission as JSON (app.submissions.views.submission_json): Any, since it goes to json.dumps as is.
View = dict[str, Any]


class ChangeHub:
    """Wakes the streams watching a submission; safe to call from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[int, set[Waiter]] = {}

    def notify(self, sub_id: int) -> None:
        with self._lock:
            waiters = list(self._waiters.get(sub_id, ()))
        for loop, event in waiters:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # that loop has closed
                pass

    def subscribe(self, sub_id: int) -> Waiter:
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.setdefault(sub_id, set()).add(entry)
        return entry

    def unsubscribe(self, sub_id: int, entry: Waiter) -> None:
        with self._lock:
            group = self._waiters.get(sub_id)
            if group is not None:
                group.discard(entry)
                if not group:
                    del self._waiters[sub_id]


def sse(event: str, data: View, event_id: int | None = None) -> bytes:
    lines = [f"event: {event}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


async def stream(sub_id: int, hub: ChangeHub, read: Callable[[], Awaitable[View | None]],
                 disconnected: Callable[[], Awaitable[bool]], poll: float = POLL_SECONDS) -> AsyncIterator[bytes]:
    """Yields SSE frames for one submission until it reaches an end state or the client leaves."""
    entry = hub.subscribe(sub_id)
    _, event = entry
    last = None
    sent = 0
    quiet_since = time.monotonic()
    try:
        yield b"retry: 2000\n\n"
        while True:
            event.clear()
            view = await read()
            if view is None:
                return
            key = (view["state"], view.get("position"))
            if key != last:
                last = key
                sent += 1
                quiet_since = time.monotonic()
                yield sse("state", view, sent)
                if view["state"] in END_STATES:
                    return
            elif time.monotonic() - quiet_since > KEEPALIVE_SECONDS:
                quiet_since = time.monotonic()
                yield b": keep-alive\n\n"
            if await disconnected():
                return
            try:
                await asyncio.wait_for(event.wait(), poll)
            except TimeoutError:
                pass
    finally:
        hub.unsubscribe(sub_id, entry)
