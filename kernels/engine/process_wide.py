"""One lazily made instance per process (the compiler, the GPU runner): each owns worker
processes, so two threads asking at once must get the same one, never two."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class ProcessWide(Generic[T]):
    def __init__(self, make: Callable[[], T]):
        self._make = make
        self._instance: T | None = None
        self._lock = threading.Lock()

    def get(self) -> T:
        with self._lock:
            if self._instance is None:
                self._instance = self._make()
            return self._instance
