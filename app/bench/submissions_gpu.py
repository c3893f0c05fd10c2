"""Full stack on a GPU machine, one box (SQLite, the in-process dispatcher): HTTP -> queue ->
dispatcher -> engine -> GPU.

    python -m app.bench.submissions_gpu [--out DIR] [--budget 420] [--bench-jobs 20] [--burst-learners 100]
                                        [--hogs 10] [--bombs 10] [--no-replay]

1. Benchmark: ``--bench-jobs`` jobs from 5 users submitted at once to a real uvicorn server; prints the
   turnaround (stored -> done) median and p95, the service time (engine start -> done) and each
   engine phase's median and p95 (``gpu`` = checking + timing, what a job holds the GPU for), and
   the time from dequeue (the claim) to engine start, target < 50 ms.
2. Class bursts (app/bench/burst.py, the same as the cluster benchmark's): ``--burst-learners``
   learners submitting at once; then, with ``--hogs`` or ``--bombs``, as many again with that many
   hogs (a correct kernel thousands of times slower than naive, gemm/hostile/slow_hog.cu) and
   compile bombs (nested macros that run into the compile timeout); the honest learners' figures
   are reported apart, so one sees what the others cost them.
3. Replay: every exercise's correct and wrong solutions and every hostile kernel, submitted
   through HTTP; then each graded again by a direct ``kernels.engine.grade()`` call in this
   process; the verdicts (and message codes) must be equal.
Writes submissions_gpu.json to --out. Exit 0 only when every verdict matches (with --no-replay: when
every job finished).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app.bench.burst import (
    BURST_LIMITS,
    KERNELS,
    Client,
    all_finished,
    burst,
    class_bursts,
    exit_cleanly_on_sigterm,
    launch_of,
    phase_line,
    report_lines,
    say,
    warm_up,
)
from app.bench.submissions_server import Server, add_users

# KERNELS, Client and launch_of live in app/bench/burst.py; other benches still import them from here.
__all__ = ["KERNELS", "Client", "launch_of", "main", "replay", "replay_files"]
EXERCISES = ("col_sum", "row_sum", "transpose", "gemm", "gemm_fast")


def replay_files() -> list[tuple[str, Path]]:
    files = [(ex, p) for ex in EXERCISES for kind in ("correct", "wrong")
             for p in sorted((KERNELS / ex / "solutions" / kind).glob("*.cu"))]
    files += [("gemm", p) for p in sorted((KERNELS / "gemm" / "hostile").glob("*.cu"))]
    return files


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget", type=float, default=420.0, help="seconds for the whole run")
    ap.add_argument("--bench-jobs", type=int, default=20, help="jobs of the first benchmark (0: none)")
    ap.add_argument("--burst-learners", type=int, default=0,
                    help="then a class burst: one job from each of this many learners, all at once")
    ap.add_argument("--hogs", type=int, default=0, help="then a second burst in which this many submit a slow hog")
    ap.add_argument("--bombs", type=int, default=0, help="and this many a compile bomb")
    ap.add_argument("--no-replay", action="store_true", help="skip the replay of every solution")
    args = ap.parse_args(argv)
    deadline = time.monotonic() + args.budget
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="mkc-gpu-") as tmp:
        server = Server(Path(tmp), dispatcher_gpu="on", submission_lease_seconds="120", dispatcher_poll_seconds="0.2",
                        **BURST_LIMITS)
        server.start(timeout=120)
        say(f"server up at {server.url}")
        try:
            users = [f"gpu{i}" for i in range(5)]
            client = Client(server.url, add_users(server.db_url, users))
            warm_up(client, users[0], deadline)
            say("warm-up job graded")
            if args.bench_jobs:
                report["bench"] = burst(client, users, args.bench_jobs, deadline)
                say("bench: " + json.dumps(report["bench"]))
            if args.burst_learners:
                report.update(class_bursts(client, server.db_url, args.burst_learners, args.hogs, args.bombs,
                                           deadline, say))
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
    b = report.get("bench")
    if b:
        print(f"\nGPU: {b.get('gpu')} (max SM clock {b.get('gpu_clock_mhz')} MHz)")
        print(f"bench: {b.get('finished')}/{b.get('jobs')} jobs from {b.get('users')} users; turnaround median "
              f"{b.get('turnaround_ms', {}).get('median')} ms, p95 {b.get('turnaround_ms', {}).get('p95')} ms; "
              f"service median {b.get('service_ms', {}).get('median')} ms; dequeue->engine start median "
              f"{b.get('dequeue_to_engine_ms', {}).get('median')} ms, p95 {b.get('dequeue_to_engine_ms', {}).get('p95')} ms, "
              f"max {b.get('dequeue_to_engine_ms', {}).get('max')} ms (target < 50 ms); {b.get('seconds_per_job')} s per job, "
              f"{b.get('cold_starts')} cold GPU-worker starts")
        print("bench phases (median/p95 ms): " + phase_line(b))
    if args.burst_learners:
        print("\n".join(report_lines("one box", report)))
    if args.no_replay:
        expected = ([b] if args.bench_jobs else []) + ([report.get("burst")] if args.burst_learners else [])
        expected += [report.get("hostile_burst")] if args.burst_learners and (args.hogs or args.bombs) else []
        return 0 if all_finished(*expected) else 1
    print(f"replay: {matched}/{len(rows)} verdicts equal to a direct engine call "
          f"({len(replay_files())} files expected)")
    return 0 if rows and matched == len(rows) == len(replay_files()) else 1


if __name__ == "__main__":
    exit_cleanly_on_sigterm()
    sys.exit(main())
