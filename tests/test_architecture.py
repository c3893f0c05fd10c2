"""The architecture as code: import-linter's contracts (pyproject.toml: the engine never imports the
web app; web features build on app.core/app.i18n/app.rendering, never the reverse), and no import
cycle between the packages of app/.

The packages of app/ import one another one way (imports inside functions included): app.accounts
imports no feature, the site's pages (app.routes, app.profile) sit on top, and where a lower package
must reach a higher one it is wired from above (the factory hands submissions the cluster's
enqueuer; the bell registers for new comments). KNOWN, the package-to-package imports allowed to lie
on a cycle, was 48 edges when this test came and is empty now; the test fails on any import that
closes a cycle.
"""
from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]

KNOWN: set[str] = set()


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def package_edges() -> dict[str, set[str]]:
    """app package -> the app packages its modules import (imports inside functions included)."""
    graph = grimp.build_graph("app")
    edges: dict[str, set[str]] = defaultdict(set)
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = _package(module), _package(imported)
            if a != b:
                edges[a].add(b)
    return edges


def cycle_edges(edges: dict[str, set[str]]) -> set[str]:
    """The edges a -> b that lie on a cycle (b reaches a again), as "a -> b" without the "app." prefix."""
    def reachable(start: str) -> set[str]:
        seen, stack = set(), [start]
        while stack:
            for nxt in edges.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return seen

    reach = {a: reachable(a) for a in list(edges)}
    return {f"{a.removeprefix('app.')} -> {b.removeprefix('app.')}"
            for a in edges for b in edges[a] if a in reach.get(b, set())}


def test_import_linter_contracts_are_kept():
    linter = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 kept, 0 broken" in done.stdout


def test_no_new_import_cycle_between_app_packages():
    new = sorted(cycle_edges(package_edges()) - KNOWN)
    assert not new, f"imports that close a new cycle between app/ packages: {new}"


def test_the_cycle_check_finds_cycles_and_only_cycles():
    edges = {"app.a": {"app.b"}, "app.b": {"app.c", "app.d"}, "app.c": {"app.a"}, "app.d": set()}
    assert cycle_edges(edges) == {"a -> b", "b -> c", "c -> a"}
