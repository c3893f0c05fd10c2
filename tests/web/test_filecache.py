"""app/core/filecache.py: a value is computed again after its file changes, and only then."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from app.core.filecache import FileCache


def _touch(path: Path, text: str, bump_s: int) -> None:
    """Write and move the mtime forward, so a change is seen on file systems with coarse clocks."""
    path.write_text(text, encoding="utf-8")
    stamp = time.time() + bump_s
    os.utime(path, (stamp, stamp))


def test_reloads_after_the_file_changes_and_not_before(tmp_path):
    path = tmp_path / "a.txt"
    _touch(path, "one", 0)
    loads = []

    def load(key: str) -> str | None:
        loads.append(key)
        try:
            return (tmp_path / key).read_text(encoding="utf-8")
        except OSError:
            return None

    cache = FileCache(lambda key: [tmp_path / key], load)
    assert cache.get("a.txt") == "one" and cache.get("a.txt") == "one"
    assert loads == ["a.txt"] and cache.version == 1
    _touch(path, "two!", 5)
    assert cache.get("a.txt") == "two!"
    assert loads == ["a.txt", "a.txt"] and cache.version == 2
    path.unlink()
    assert cache.get("a.txt") is None  # gone: loaded once more, and that answer is kept
    assert cache.get("a.txt") is None and len(loads) == 3
    _touch(path, "three", 10)
    assert cache.get("a.txt") == "three"


def test_a_new_file_in_a_watched_folder_counts(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()

    def files(_key: None) -> list[Path]:
        return [folder, *sorted(folder.glob("*.json"))]

    cache = FileCache(files, lambda _key: sorted(p.name for p in folder.glob("*.json")))
    assert cache.get(None) == []
    _touch(folder / "x.json", "{}", 5)
    os.utime(folder, (time.time() + 5, time.time() + 5))
    assert cache.get(None) == ["x.json"]


def test_recheck_interval_skips_the_stat_until_it_passes(tmp_path):
    path = tmp_path / "spec.yaml"
    _touch(path, "a", 0)
    stats = []

    def files(key: str) -> list[Path]:
        stats.append(key)
        return [path]

    cache = FileCache(files, lambda _key: path.read_text(encoding="utf-8"), recheck_s=0.2)
    assert cache.get("k") == "a"
    _touch(path, "b", 5)
    assert cache.get("k") == "a" and len(stats) == 1  # within the interval: not even a stat()
    time.sleep(0.25)
    assert cache.get("k") == "b" and len(stats) == 2
    _touch(path, "c", 10)
    cache.expire()  # as if the interval had passed
    assert cache.get("k") == "c" and len(stats) == 3


def test_results_store_sees_a_results_file_added_changed_and_removed(tmp_path):
    from app.lessons.measured import ResultsStore

    folder = tmp_path / "results"
    folder.mkdir()
    store = ResultsStore(folder)
    assert store.documents == [] and "No measurements" in store.html("gemm", "en")
    first = store.version
    doc = {"schema": "kernels-results/1", "date": "2031-01-02", "gpu": {"name": "Test GPU"},
           "entries": [{"exercise": "gemm", "kernel": "naive", "median_ms": 1.5}]}
    _touch(folder / "a.json", json.dumps(doc), 5)
    os.utime(folder, (time.time() + 5, time.time() + 5))
    assert store.version == first + 1 and "Test GPU" in store.html("gemm", "en")
    _touch(folder / "a.json", json.dumps({**doc, "gpu": {"name": "Other GPU"}}), 10)
    assert "Other GPU" in store.html("gemm", "en") and store.version == first + 2
    (folder / "a.json").unlink()
    assert store.documents == []


def test_static_versions_follow_the_file(tmp_path):
    from app.templating import StaticVersions

    versions = StaticVersions(tmp_path)
    assert versions.url("x.css") == "/static/x.css"  # absent: no version
    _touch(tmp_path / "x.css", "a {}", 5)
    one = versions.url("x.css")
    _touch(tmp_path / "x.css", "b {}", 10)
    two = versions.url("x.css")
    assert one.startswith("/static/x.css?v=") and two.startswith("/static/x.css?v=") and one != two
