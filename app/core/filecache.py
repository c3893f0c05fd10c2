"""Values computed from files, computed again when one of the files changes.

The web app's one "reload when the file changes" cache: the lesson catalog (app/lessons/catalog.py),
the measured results (app/lessons/measured.py), the static files' version hashes
(app/templating.py), the authoring guide (app/lessons/guide.py), exercise specs
(app/lessons/exercises.py) and the ladder's texts (app/ladder/content.py) use it.
A file's state is its (path, mtime_ns, size), or absent; a value is recomputed when the
state of any of its files differs from the last computation's. A value computed from a whole
folder lists the folder itself among its files (``listing``): a folder's mtime changes when an
entry is added, removed or renamed, so a new file is seen without knowing its name beforehand.
With ``recheck_s`` the files are stat()ed at most that often per key: lesson pages ask on every
view, and the stat() calls were ~17 % of the event loop's time under wrk (profiled with py-spy).

No maintained library does this small thing without a watcher thread (watchfiles, watchdog)
or a TTL that serves stale values (cachetools): hand-written, ~80 lines.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

Signature = tuple[tuple[str, int, int] | tuple[str], ...]


def signature(paths: Iterable[Path]) -> Signature:
    """The state of these files: (path, mtime_ns, size) each, (path,) for one that is absent."""
    state: list[tuple[str, int, int] | tuple[str]] = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:  # absent, or removed while we looked: the next check sees it
            state.append((str(path),))
            continue
        state.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(state)


def listing(folder: Path, pattern: str = "*") -> list[Path]:
    """``folder`` and its entries that match ``pattern``, sorted: the files of a value computed from
    a folder's contents (``folder`` itself is listed for the entries added or removed)."""
    try:
        return [folder, *sorted(folder.glob(pattern))]
    except OSError:  # gone while we looked: its state reads as absent
        return [folder]


@dataclass
class _Entry(Generic[V]):
    signature: Signature
    value: V
    checked_at: float


class FileCache(Generic[K, V]):
    """``get(key)``: ``load(key)``, computed again when a file of ``files(key)`` changes.

    ``files`` is called on every check (at most once per ``recheck_s``), so it may list a folder's
    entries as they are now (``listing``). It may list folders (a folder's mtime changes when an
    entry is added or removed) and files that do not exist yet. ``load`` should not raise for a
    missing or broken file: what it returns (None, a report) is cached like any value until the
    files change. ``version`` grows by one whenever any value is computed again (callers key their
    own derived caches on it).
    """

    def __init__(self, files: Callable[[K], Iterable[Path]], load: Callable[[K], V], recheck_s: float = 0.0):
        self._files = files
        self._load = load
        self.recheck_s = recheck_s
        self._entries: dict[K, _Entry[V]] = {}
        self._lock = threading.Lock()
        self.version = 0

    def get(self, key: K) -> V:
        entry = self._entries.get(key)
        now = time.monotonic()
        if entry is not None and now - entry.checked_at < self.recheck_s:
            return entry.value
        with self._lock:  # one reader computes; the others wait and take its value
            entry = self._entries.get(key)
            if entry is not None and time.monotonic() - entry.checked_at < self.recheck_s:
                return entry.value
            current = signature(self._files(key))
            if entry is None or entry.signature != current:
                entry = _Entry(current, self._load(key), 0.0)
                self._entries[key] = entry
                self.version += 1
            entry.checked_at = time.monotonic()
            return entry.value

    def expire(self) -> None:
        """Check the files on the next ``get`` of every key, however recently they were checked."""
        with self._lock:
            for entry in self._entries.values():
                entry.checked_at = float("-inf")
