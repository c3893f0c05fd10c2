"""In-process sliding-window rate limits for sign-in and sign-up.

Each key (e.g. ("signin", ip, username)) keeps the times of its recent attempts; an attempt is
refused while ``limit`` of them fall inside the last ``window`` seconds. State lives in this
process only: with several server processes each keeps its own window (the effective limit
multiplies by the number of processes), and a restart forgets it. That is adequate against
password guessing from one place; a shared store (Redis, the database) would be the next step.

Defaults (app/accounts/auth.py, AccountsConfig): failed sign-ins 8 per 5 min per (IP, username)
and 40 per 5 min per IP; sign-ups 6 per hour per IP. Override with MKC_SIGNIN_USER_LIMIT,
MKC_SIGNIN_IP_LIMIT, MKC_SIGNUP_LIMIT as "attempts/seconds". The IP is the ASGI client address:
behind a reverse proxy run uvicorn with --proxy-headers so it is the learner's, not the proxy's.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable, Hashable


class SlidingWindowLimiter:
    def __init__(self, limit: int, window: float, clock: Callable[[], float] = time.monotonic):
        self.limit, self.window, self.clock = limit, window, clock
        self._hits: dict[Hashable, deque[float]] = {}
        self._lock = threading.Lock()

    def _trim(self, key: Hashable, now: float) -> deque[float]:
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        return hits

    def retry_after(self, key: Hashable) -> float:
        """Seconds until the next attempt is allowed (0 when allowed now)."""
        with self._lock:
            now = self.clock()
            hits = self._trim(key, now)
            if len(hits) < self.limit:
                return 0.0
            return max(0.0, hits[0] + self.window - now)

    def hit(self, key: Hashable) -> None:
        with self._lock:
            now = self.clock()
            self._trim(key, now).append(now)
            if len(self._hits) > 50_000:  # forget idle keys so memory stays bounded
                for stale in [k for k, v in self._hits.items() if not v or v[-1] <= now - self.window]:
                    del self._hits[stale]

    def reset(self, key: Hashable) -> None:
        with self._lock:
            self._hits.pop(key, None)
