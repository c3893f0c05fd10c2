"""A class submitting at once, through HTTP, and its report: shared by the one-box benchmark
(``app.bench.submissions_gpu``) and the cluster benchmark (``app.bench.submissions_cluster``), so both
deployments are measured by the same jobs and print the same figures in the same words.

A burst is one gemm submission from each of N learners, all posted at once, then polled until every
one is done. The first ``hogs`` of them submit a slow hog (``gemm/hostile/slow_hog.cu``: correct, about
2500 times slower than the naive kernel, stopped as TOO_SLOW), the next ``bombs`` a compile bomb
(macros that run into the compile timeout), the rest the tiled gemm (honest). Hostile jobs go first:
the worst case for the honest learners behind them.

Figures, for all jobs and for each kind apart: turnaround (stored -> done), service (engine start ->
done), dequeue -> engine start, and each engine phase of the Result (``gpu`` = checking + timing, what
a job holds the GPU for), as median and p95.
"""
from __future__ import annotations

import json
import re
import secrets
import signal
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

from app.bench.submissions_server import add_users
from app.core.config import PROJECT_ROOT

KERNELS = PROJECT_ROOT / "kernels"
LAUNCH_RE = re.compile(r"^//\s*launch:\s*(\{.*\})", re.M)
KINDS = ("honest", "hog", "bomb")


class Limits(TypedDict):
    submission_max_in_flight: str
    submission_per_hour: str
    submission_per_day: str


# Server settings for a burst: no per-learner limit may refuse one of the bench's posts.
BURST_LIMITS = Limits(submission_max_in_flight="100", submission_per_hour="1000", submission_per_day="1000")
# The targets, printed beside the figures (never asserted: a benchmark reports).
TARGET_SERVICE_MS, TARGET_P95_MS = 500.0, 60_000.0
T0 = time.monotonic()  # a benchmark's clock: its log lines say the seconds since


def say(text: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {text}", flush=True)


def exit_cleanly_on_sigterm() -> None:
    """SIGTERM (``timeout``, a supervisor) ends the benchmark through its ``finally`` blocks: the server and
    workers it started are stopped (they run in sessions of their own and would outlive it, holding the
    GPU), its database dropped."""
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))


def launch_of(path: Path) -> dict[str, Any] | None:
    m = LAUNCH_RE.search(path.read_text(encoding="utf-8"))
    launch: dict[str, Any] | None = json.loads(m.group(1)) if m else None  # None: the exercise's launch_defaults
    return launch


def pct(xs: Iterable[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class Client:
    def __init__(self, url: str, tokens: dict[str, str]):
        import httpx

        self.http = httpx.Client(base_url=url, timeout=60)
        self.tokens = tokens

    def submit(self, user: str, exercise: str, source: str, launch: dict[str, Any] | None) -> int:
        body = {"source": source} if launch is None else {"source": source, "launch": launch}
        r = self.http.post(f"/api/exercises/{exercise}/submissions", json=body,
                           headers={"Authorization": f"Bearer {self.tokens[user]}"})
        if r.status_code != 202:
            raise RuntimeError(f"submit {exercise}: {r.status_code} {r.text}")
        new_id: int = r.json()["id"]
        return new_id

    def wait_all(self, jobs: dict[int, str], deadline: float) -> dict[int, dict[str, Any]]:
        views: dict[int, dict[str, Any]] = {}
        while len(views) < len(jobs) and time.monotonic() < deadline:
            for sub_id, user in jobs.items():
                if sub_id in views:
                    continue
                v = self.http.get(f"/api/submissions/{sub_id}", headers={"Authorization": f"Bearer {self.tokens[user]}"}).json()
                if v["state"] in ("done", "awaiting_gpu"):
                    views[sub_id] = v
            time.sleep(0.1)
        return views


def warm_up(client: Client, user: str, deadline: float, alive: Callable[[], None] = lambda: None) -> None:
    """One naive gemm, graded before anything is measured: it starts the compile worker and the GPU
    worker pool. ``alive`` raises when the grader died meanwhile (then no job would ever finish)."""
    job = {client.submit(user, "gemm", (KERNELS / "gemm" / "naive.cu").read_text(), None): user}
    while time.monotonic() < deadline:
        if client.wait_all(job, min(deadline, time.monotonic() + 2.0)):
            return
        alive()
    raise TimeoutError("the warm-up job was not graded within the budget")


def compile_bomb() -> str:
    """A gemm whose macros expand to 2^27 tokens: it passes the source policy, and NVRTC runs into
    the compile timeout. Its first line names it, so ``app.bench.fake_gpu`` treats it as one too."""
    lines = ["// compile bomb", "#define X0 1+"] + [f"#define X{i} X{i - 1} X{i - 1}" for i in range(1, 28)]
    return "\n".join(lines) + ('\nextern "C" __global__ void gemm(const float* A, const float* B, float* C, '
                               "int M, int N, int K)\n{\n    C[0] = X27 1;\n}\n")


def burst(client: Client, users: list[str], n: int, deadline: float, hogs: int = 0, bombs: int = 0) -> dict[str, Any]:
    """n jobs at once from ``users`` in turn; the first ``hogs`` of them a slow hog, the next ``bombs``
    a compile bomb, the rest the tiled gemm (honest)."""
    tiled = KERNELS / "gemm" / "tiled.cu"
    hog = KERNELS / "gemm" / "hostile" / "slow_hog.cu"
    jobs, kinds = {}, {}
    started = time.monotonic()
    for i in range(n):
        user = users[i % len(users)]
        kind = "hog" if i < hogs else "bomb" if i < hogs + bombs else "honest"
        path = hog if kind == "hog" else tiled
        source = compile_bomb() if kind == "bomb" else path.read_text()
        sub_id = client.submit(user, "gemm", source + f"\n// bench {secrets.token_hex(6)}\n",
                               None if kind == "bomb" else launch_of(path))
        jobs[sub_id], kinds[sub_id] = user, kind
    views = client.wait_all(jobs, deadline)
    out = figures(views.values(), n)
    out["users"] = len(set(users[i % len(users)] for i in range(n)))
    out["wall_s"] = round(time.monotonic() - started, 1)
    if hogs or bombs:
        for kind in KINDS:
            mine = [v for sub_id, v in views.items() if kinds[sub_id] == kind]
            out[kind] = figures(mine, sum(k == kind for k in kinds.values()))
    return out


def class_bursts(client: Client, db_url: str, learners: int, hogs: int, bombs: int, deadline: float,
                 say: Callable[[str], None]) -> dict[str, Any]:
    """``burst``: ``learners`` honest learners at once; then, with hogs or bombs, ``hostile_burst``: as many
    new learners (no hourly budget or queue turn carries over), ``hogs`` and ``bombs`` of them hostile."""
    out: dict[str, Any] = {}
    plan = [("burst", "learner", 0, 0)] + ([("hostile_burst", "mixed", hogs, bombs)] if hogs or bombs else [])
    for key, prefix, n_hogs, n_bombs in plan:
        if time.monotonic() >= deadline:
            say(f"{key}: skipped, the budget is spent")
            break
        names = [f"{prefix}{i}" for i in range(learners)]
        client.tokens.update(add_users(db_url, names, token_only=True))
        out[key] = burst(client, names, learners, deadline, n_hogs, n_bombs)
        out[key]["hogs"], out[key]["bombs"] = n_hogs, n_bombs
        say(f"{key}: " + json.dumps(out[key]))
    return out


def phase_figures(done: list[dict[str, Any]]) -> dict[str, Any]:
    """Median and p95 of each engine phase (Result.phases), and of ``gpu``: checking + timing."""
    per: dict[str, list[float]] = {}
    for v in done:
        phases = {p["name"]: float(p["ms"]) for p in (v.get("result") or {}).get("phases") or []}
        if not phases:  # a result without phases (a stand-in's refusal) tells nothing about the GPU either
            continue
        for name, ms in phases.items():
            per.setdefault(name, []).append(ms)
        per.setdefault("gpu", []).append(phases.get("checking", 0.0) + phases.get("timing", 0.0))
    return {name: {"median": round(statistics.median(xs), 1), "p95": round(pct(xs, .95), 1)}
            for name, xs in per.items() if xs}


def _when(v: dict[str, Any], key: str) -> datetime:
    return datetime.fromisoformat(v[key].rstrip("Z"))


def figures(views: Iterable[dict[str, Any]], n: int) -> dict[str, Any]:
    """Turnaround (stored -> done) of every finished job; service (engine start -> done), dequeue ->
    engine start and throughput of those that reached the engine (a compile bomb ends before it)."""
    done = [v for v in views if v["state"] == "done" and v["finished_at"]]
    graded = [v for v in done if v["started_at"]]
    gpu = next(((v.get("result") or {}).get("gpu") or {} for v in graded if (v.get("result") or {}).get("gpu")), {})
    out: dict[str, Any] = {"jobs": n, "finished": len(done), "verdicts": sorted({v["verdict"] for v in done}),
                           "phases_ms": phase_figures(done), "gpu": gpu.get("name"), "gpu_clock_mhz": gpu.get("clock_mhz")}
    if len(graded) > 1:  # GPU-busy throughput: first engine start to last finish
        span = max(_when(v, "finished_at") for v in graded) - min(_when(v, "started_at") for v in graded)
        out["seconds_per_job"] = round(span.total_seconds() / len(graded), 3)
        out["cold_starts"] = sum(((v.get("result") or {}).get("versions") or {}).get("gpu_cold_start") == "True"
                                 for v in graded)
    series = (("turnaround_ms", [(_when(v, "finished_at") - _when(v, "created_at")).total_seconds() * 1000 for v in done]),
              ("service_ms", [(_when(v, "finished_at") - _when(v, "started_at")).total_seconds() * 1000 for v in graded]),
              ("dequeue_to_engine_ms", [v["dequeue_to_engine_ms"] for v in graded if v["dequeue_to_engine_ms"] is not None]))
    for name, xs in series:
        if xs:
            out[name] = {"median": round(statistics.median(xs), 1), "p95": round(pct(xs, .95), 1),
                         "max": round(max(xs), 1)}
    return out


def phase_line(figs: dict[str, Any]) -> str:
    return ", ".join(f"{name} {v['median']:.0f}/{v['p95']:.0f}" for name, v in (figs.get("phases_ms") or {}).items())


def _mp(figs: dict[str, Any], key: str) -> str:
    """'median/p95 ms' of one series, or '-' when no job gave it."""
    s = figs.get(key)
    return f"{s['median']:.0f}/{s['p95']:.0f} ms" if s else "-"


def _burst_lines(mode: str, title: str, c: dict[str, Any]) -> list[str]:
    lines = [f"[{mode}] {title}: {c.get('finished')}/{c.get('jobs')} jobs from {c.get('users')} learners in "
             f"{c.get('wall_s')} s; turnaround median/p95 {_mp(c, 'turnaround_ms')}; service median/p95 "
             f"{_mp(c, 'service_ms')}; dequeue->engine median/p95 {_mp(c, 'dequeue_to_engine_ms')}; "
             f"{c.get('seconds_per_job')} s per job",
             f"[{mode}] {title} phases (median/p95 ms): " + phase_line(c)]
    for kind in KINDS:
        k = c.get(kind)
        if k:
            lines.append(f"[{mode}]   {kind}: {k.get('finished')}/{k.get('jobs')} finished, verdicts {k.get('verdicts')}; "
                         f"turnaround median/p95 {_mp(k, 'turnaround_ms')}; service median/p95 {_mp(k, 'service_ms')}; "
                         "phases " + phase_line(k))
    return lines


def report_lines(mode: str, report: dict[str, Any]) -> list[str]:
    """The bursts' summary, the same lines for either deployment (``mode`` names it)."""
    plain, hostile = report.get("burst"), report.get("hostile_burst")
    first = plain or hostile or {}
    gpu = (f"{first['gpu']} (max SM clock {first.get('gpu_clock_mhz')} MHz)" if first.get("gpu")
           else "none named in the results (a stand-in grader, or no job reached a GPU)")
    lines = [f"[{mode}] GPU: {gpu}"]
    if plain:
        lines += _burst_lines(mode, "burst", plain)
    if hostile:
        lines += _burst_lines(mode, f"burst with {hostile['hogs']} hogs and {hostile['bombs']} bombs", hostile)
    honest_alone = (plain or {}).get("turnaround_ms")
    honest_beside = (hostile or {}).get("honest", {}).get("turnaround_ms")
    if honest_alone and honest_beside:
        moved = honest_beside["p95"] / honest_alone["p95"] - 1 if honest_alone["p95"] else float("nan")
        lines.append(f"[{mode}] honest p95 turnaround: {honest_alone['p95'] / 1000:.1f} s alone, "
                     f"{honest_beside['p95'] / 1000:.1f} s beside the hogs and bombs ({moved:+.0%})")
    if plain and plain.get("service_ms") and plain.get("turnaround_ms"):
        service, p95 = plain["service_ms"]["median"], plain["turnaround_ms"]["p95"]
        lines.append(f"[{mode}] targets: service median {service:.0f} ms (<= {TARGET_SERVICE_MS:.0f}: "
                     f"{'met' if service <= TARGET_SERVICE_MS else 'missed'}); {plain['jobs']} learners "
                     f"p95 {p95 / 1000:.1f} s (<= {TARGET_P95_MS / 1000:.0f} s: {'met' if p95 <= TARGET_P95_MS else 'missed'})")
    if report.get("error"):
        lines.append(f"[{mode}] stopped early: {report['error'][:500]}")
    return lines


def all_finished(*figs: dict[str, Any] | None) -> bool:
    """Every job of every given burst finished (a missing burst counts as unfinished)."""
    return all(f is not None and f.get("finished") == f.get("jobs") for f in figs)
