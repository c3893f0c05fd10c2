"""Compile cache: an in-memory LRU, plus an optional folder on disk shared between processes.

Keyed by the sha256 of everything that decides the output: the full text compiled (prelude +
learner source + signature check), the options, the NVRTC version and the architecture.
Stored values are plain dicts (JSON-safe) plus the cubin bytes, so disk and memory agree.
Only finished compiles are stored (success or a compile error): never timeouts or crashes,
which may depend on the machine's load.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

CACHE_FORMAT = 1  # bump when what is stored changes meaning


def cache_key(*, text: str, options: list[str], nvrtc_version: str, arch: str,
              name_expressions: list[str]) -> str:
    blob = json.dumps({"format": CACHE_FORMAT, "text": text, "options": options,
                       "nvrtc": nvrtc_version, "arch": arch, "names": name_expressions},
                      sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CubinCache:
    def __init__(self, max_entries: int = 256, disk_dir: str | None = None):
        self.max_entries = max_entries
        self.disk_dir = Path(disk_dir) if disk_dir else None
        self._mem: OrderedDict[str, tuple[dict[str, Any], bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> tuple[dict[str, Any], bytes] | None:
        with self._lock:
            if key in self._mem:
                self._mem.move_to_end(key)
                self.hits += 1
                return self._mem[key]
        found = self._disk_get(key)
        with self._lock:
            if found is None:
                self.misses += 1
                return None
            self.hits += 1
            self._put_mem(key, found)
        return found

    def put(self, key: str, meta: dict[str, Any], cubin: bytes) -> None:
        with self._lock:
            self._put_mem(key, (meta, cubin))
        self._disk_put(key, meta, cubin)

    def __len__(self) -> int:
        return len(self._mem)

    def _put_mem(self, key: str, value: tuple[dict[str, Any], bytes]) -> None:
        self._mem[key] = value
        self._mem.move_to_end(key)
        while len(self._mem) > self.max_entries:
            self._mem.popitem(last=False)

    # ---- disk: <dir>/<k[:2]>/<k>.json + <k>.cubin, written atomically ------------------

    def _paths(self, key: str) -> tuple[Path, Path]:
        assert self.disk_dir is not None
        d = self.disk_dir / key[:2]
        return d / f"{key}.json", d / f"{key}.cubin"

    def _disk_get(self, key: str) -> tuple[dict[str, Any], bytes] | None:
        if self.disk_dir is None:
            return None
        meta_p, cubin_p = self._paths(key)
        try:
            meta = json.loads(meta_p.read_text(encoding="utf-8"))
            cubin = cubin_p.read_bytes() if meta.get("has_cubin") else b""
        except (OSError, ValueError):
            return None
        if meta.get("format") != CACHE_FORMAT:
            return None
        return meta, cubin

    def _disk_put(self, key: str, meta: dict[str, Any], cubin: bytes) -> None:
        if self.disk_dir is None:
            return
        meta_p, cubin_p = self._paths(key)
        try:
            meta_p.parent.mkdir(parents=True, exist_ok=True)
            if cubin:
                _atomic_write(cubin_p, cubin)
            body = dict(meta, format=CACHE_FORMAT, has_cubin=bool(cubin))
            _atomic_write(meta_p, json.dumps(body, ensure_ascii=False).encode("utf-8"))
        except OSError:
            pass  # a cache that cannot write is just a smaller cache


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
