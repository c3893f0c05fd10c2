"""Full stack on a GPU machine: HTTP -> queue -> dispatcher -> engine -> GPU.

    python -m app.bench.submissions_gpu [--out DIR] [--budget 420] [--bench-jobs 40] [--burst-learners 100]
                                        [--hogs 10] [--bombs 10]

1. Benchmark: 20 jobs from 5 users submitted at once to a real uvicorn server; prints the
   turnaround (stored -> done) median and p95, the service time (engine start -> done) and each
   engine phase's median and p95 (``gpu`` = checking + timing, what a job holds the GPU for), and
   the time from dequeue (the claim) to engine start, target < 50 ms. The class burst can mix in
   hogs (a correct kernel thousands of times slower than naive, gemm/hostile/slow_hog.cu) and
   compile bombs (nested macros that run into the compile timeout); the honest learners' figures
   are reported apart, so one sees what the others cost them.
2. Replay: every exercise's correct and wrong solutions and every hostile kernel, submitted
   through HTTP; then each graded again by a direct ``kernels.engine.grade()`` call in this
   process; the verdicts (and message codes) must be equal.
Writes submissions_gpu.json to --out. Exit 0 only when every verdict matches.
"""
from __future__ import annotations

import argparse
import json
import re
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.bench.submissions_server import Server, add_users
from app.core.config import PROJECT_ROOT

KERNELS = PROJECT_ROOT / "kernels"
EXERCISES = ("col_sum", "row_sum", "transpose", "gemm", "gemm_fast")
LAUNCH_RE = re.compile(r"^//\s*launch:\s*(\{.*\})", re.M)
T0 = time.monotonic()


def say(text: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {text}", flush=True)


def launch_of(path: Path) -> dict[str, Any] | None:
    m = LAUNCH_RE.search(path.read_text(encoding="utf-8"))
    launch: dict[str, Any] | None = json.loads(m.group(1)) if m else None  # None: the exercise's launch_defaults
    return launch


def replay_files() -> list[tuple[str, Path]]:
    files = [(ex, p) for ex in EXERCISES for kind in ("correct", "wrong")
             for p in sorted((KERNELS / ex / "solutions" / kind).glob("*.cu"))]
    files += [("gemm", p) for p in sorted((KERNELS / "gemm" / "hostile").glob("*.cu"))]
    return files


def _pct(xs: Iterable[float], q: float) -> float:
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


def compile_bomb() -> str:
    """A gemm whose macros expand to 2^27 tokens: it passes the source policy, and NVRTC runs into
    the compile timeout."""
    lines = ["#define X0 1+"] + [f"#define X{i} X{i - 1} X{i - 1}" for i in range(1, 28)]
    return "\n".join(lines) + ('\nextern "C" __global__ void gemm(const float* A, const float* B, float* C, '
                               "int M, int N, int K)\n{\n    C[0] = X27 1;\n}\n")


def bench(client: Client, users: list[str], n: int, deadline: float, hogs: int = 0, bombs: int = 0) -> dict[str, Any]:
    """n jobs at once from ``users`` in turn; the first ``hogs`` of them a slow hog, the next ``bombs``
    a compile bomb, the rest the tiled gemm (honest)."""
    tiled = KERNELS / "gemm" / "tiled.cu"
    hog = KERNELS / "gemm" / "hostile" / "slow_hog.cu"
    jobs, kinds = {}, {}
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
    if hogs or bombs:
        for kind in ("honest", "hog", "bomb"):
            mine = [v for sub_id, v in views.items() if kinds[sub_id] == kind]
            if mine:
                out[kind] = figures(mine, sum(k == kind for k in kinds.values()))
    return out


def phase_figures(done: list[dict[str, Any]]) -> dict[str, Any]:
    """Median and p95 of each engine phase (Result.phases), and of ``gpu``: checking + timing."""
    per: dict[str, list[float]] = {}
    for v in done:
        phases = {p["name"]: float(p["ms"]) for p in (v.get("result") or {}).get("phases") or []}
        for name, ms in phases.items():
            per.setdefault(name, []).append(ms)
        per.setdefault("gpu", []).append(phases.get("checking", 0.0) + phases.get("timing", 0.0))
    return {name: {"median": round(statistics.median(xs), 1), "p95": round(_pct(xs, .95), 1)}
            for name, xs in per.items() if xs}


def figures(views: Iterable[dict[str, Any]], n: int) -> dict[str, Any]:
    """Turnaround (stored -> done), service (engine start -> done) and throughput of finished jobs."""
    views = list(views)

    def ms(v: dict[str, Any], a: str, b: str) -> float:
        from datetime import datetime

        return (datetime.fromisoformat(v[b].rstrip("Z")) - datetime.fromisoformat(v[a].rstrip("Z"))).total_seconds() * 1000

    done = [v for v in views if v["state"] == "done" and v["started_at"] and v["finished_at"]]
    turnaround = [ms(v, "created_at", "finished_at") for v in done]
    service = [ms(v, "started_at", "finished_at") for v in done]
    dequeue = [v["dequeue_to_engine_ms"] for v in done]
    out = {"jobs": n, "finished": len(done), "verdicts": sorted({v["verdict"] for v in done}),
           "phases_ms": phase_figures(done),
           "gpu": (done[0]["result"].get("gpu") or {}).get("name") if done else None,
           "gpu_clock_mhz": (done[0]["result"].get("gpu") or {}).get("clock_mhz") if done else None}
    if len(done) > 1:  # GPU-busy throughput: first engine start to last finish
        from datetime import datetime

        first = min(datetime.fromisoformat(v["started_at"].rstrip("Z")) for v in done)
        last = max(datetime.fromisoformat(v["finished_at"].rstrip("Z")) for v in done)
        out["seconds_per_job"] = round((last - first).total_seconds() / len(done), 3)
        out["cold_starts"] = sum((v["result"].get("versions") or {}).get("gpu_cold_start") == "True" for v in done)
    for name, xs in (("turnaround_ms", turnaround), ("service_ms", service), ("dequeue_to_engine_ms", dequeue)):
        if xs:
            out[name] = {"median": round(statistics.median(xs), 1), "p95": round(_pct(xs, .95), 1),
                         "max": round(max(xs), 1)}
    return out


def replay(client: Client, users: list[str], deadline: float) -> list[dict[str, Any]]:
    from kernels.engine import grade

    files = replay_files()
    jobs, meta = {}, {}
    for i, (ex, path) in enumerate(files):
        user = users[i % len(users)]
        sub_id = client.submit(user, ex, path.read_text(encoding="utf-8"), launch_of(path))
        jobs[sub_id], meta[sub_id] = user, (ex, path)
    say(f"replay: {len(jobs)} submissions stored; waiting for the dispatcher")
    views = client.wait_all(jobs, deadline)
    say(f"replay: {len(views)} graded through HTTP; now the direct engine calls")
    rows = []
    for sub_id, (ex, path) in meta.items():
        v = views.get(sub_id)
        if time.monotonic() > deadline:
            break
        direct = grade(ex, path.read_text(encoding="utf-8"), launch_of(path))
        http_verdict = v["verdict"] if v else None
        http_code = v["result"]["message"]["code"] if v and v.get("result") else None
        row = {"file": str(path.relative_to(KERNELS)), "http": http_verdict, "http_code": http_code,
               "direct": direct.verdict.value, "direct_code": direct.message.code,
               "match": http_verdict == direct.verdict.value and http_code == direct.message.code}
        rows.append(row)
        say(f"{'ok ' if row['match'] else 'DIFF'} {row['file']:<48} http={http_verdict}/{http_code} "
            f"direct={row['direct']}/{row['direct_code']}")
    return rows


def _phase_line(figs: dict[str, Any]) -> str:
    return ", ".join(f"{name} {v['median']:.0f}/{v['p95']:.0f}" for name, v in (figs.get("phases_ms") or {}).items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget", type=float, default=420.0, help="seconds for the whole run")
    ap.add_argument("--bench-jobs", type=int, default=20)
    ap.add_argument("--burst-learners", type=int, default=0,
                    help="then a class burst: one job from each of this many learners, all at once")
    ap.add_argument("--hogs", type=int, default=0, help="of the burst learners, this many submit a slow hog")
    ap.add_argument("--bombs", type=int, default=0, help="and this many a compile bomb")
    ap.add_argument("--no-replay", action="store_true", help="skip the replay of every solution")
    args = ap.parse_args(argv)
    deadline = T0 + args.budget
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="mkc-gpu-") as tmp:
        server = Server(Path(tmp), dispatcher_gpu="on", submission_max_in_flight="100", submission_per_hour="1000",
                        submission_per_day="1000", submission_lease_seconds="120", dispatcher_poll_seconds="0.2")
        server.start(timeout=120)
        say(f"server up at {server.url}")
        try:
            users = [f"gpu{i}" for i in range(5)]
            client = Client(server.url, add_users(server.db_url, users))
            # warm-up: the first job starts the compile worker and the GPU worker pool
            client.wait_all({client.submit(users[0], "gemm", (KERNELS / "gemm" / "naive.cu").read_text(), None): users[0]},
                            deadline)
            say("warm-up job graded")
            report["bench"] = bench(client, users, args.bench_jobs, deadline)
            say("bench: " + json.dumps(report["bench"]))
            if args.burst_learners:
                learners = [f"learner{i}" for i in range(args.burst_learners)]
                client.tokens.update(add_users(server.db_url, learners, token_only=True))
                report["burst"] = bench(client, learners, args.burst_learners, deadline, args.hogs, args.bombs)
                say("burst: " + json.dumps(report["burst"]))
            if not args.no_replay:
                report["replay"] = replay(client, users, deadline)
        finally:
            server.stop()
            report["server_log_tail"] = server.log.read_text(errors="replace")[-4000:]
    rows = report.get("replay", [])
    matched = sum(r["match"] for r in rows)
    report["summary"] = {"replayed": len(rows), "expected": len(replay_files()), "matched": matched}
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "submissions_gpu.json").write_text(json.dumps(report, indent=1))
    b = report.get("bench", {})
    print(f"\nGPU: {b.get('gpu')} (max SM clock {b.get('gpu_clock_mhz')} MHz)")
    print(f"bench: {b.get('finished')}/{b.get('jobs')} jobs from {b.get('users')} users; turnaround median "
          f"{b.get('turnaround_ms', {}).get('median')} ms, p95 {b.get('turnaround_ms', {}).get('p95')} ms; "
          f"service median {b.get('service_ms', {}).get('median')} ms; dequeue->engine start median "
          f"{b.get('dequeue_to_engine_ms', {}).get('median')} ms, p95 {b.get('dequeue_to_engine_ms', {}).get('p95')} ms, "
          f"max {b.get('dequeue_to_engine_ms', {}).get('max')} ms (target < 50 ms); {b.get('seconds_per_job')} s per job, "
          f"{b.get('cold_starts')} cold GPU-worker starts")
    print("bench phases (median/p95 ms): " + _phase_line(b))
    c = report.get("burst")
    if c:
        print(f"burst: {c.get('finished')}/{c.get('jobs')} jobs from {c.get('users')} learners; turnaround median "
              f"{c.get('turnaround_ms', {}).get('median')} ms, p95 {c.get('turnaround_ms', {}).get('p95')} ms; "
              f"service median {c.get('service_ms', {}).get('median')} ms; {c.get('seconds_per_job')} s per job")
        print("burst phases (median/p95 ms): " + _phase_line(c))
        for kind in ("honest", "hog", "bomb"):
            k = c.get(kind)
            if k:
                print(f"  {kind}: {k.get('finished')}/{k.get('jobs')} finished, verdicts {k.get('verdicts')}; turnaround "
                      f"median {k.get('turnaround_ms', {}).get('median')} ms, p95 {k.get('turnaround_ms', {}).get('p95')} ms; "
                      "phases " + _phase_line(k))
    if args.no_replay:
        return 0 if b.get("finished") == b.get("jobs") else 1
    print(f"replay: {matched}/{len(rows)} verdicts equal to a direct engine call "
          f"({len(replay_files())} files expected)")
    return 0 if rows and matched == len(rows) == len(replay_files()) else 1


if __name__ == "__main__":
    sys.exit(main())
