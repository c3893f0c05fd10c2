"""Soak benchmark of the submissions stack, localhost only.

    python -m app.bench.submissions [--users 200] [--seconds 60] [--workers 1]

Starts a real uvicorn server on a free localhost port with a throwaway SQLite file (the
dispatcher inside it compiles for real; without a GPU jobs end in awaiting_gpu), creates the
users with API tokens, then lets every simulated user loop for the given time: read a lesson
page, mark a lesson complete, submit a kernel (one in flight, as the default limit says) and
poll it. Afterwards it counts rows in the database. Pass: zero 5xx and zero lost writes
(every 202 has its submission row, every completed lesson its event and XP entry).
"""
from __future__ import annotations

import argparse
import asyncio
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

from app.bench.submissions_server import Server, add_users
from app.core.config import PROJECT_ROOT

SLUGS = ["matrix-layout-coalescing", "parallel-reduction", "transpose-bank-conflicts", "naive-vs-tiled-gemm",
         "register-tiling-tensor-cores"]
LAUNCH = {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


class Tally:
    def __init__(self) -> None:
        self.status: dict[str, Counter[int]] = defaultdict(Counter)  # kind -> HTTP status -> count
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter[str] = Counter()
        self.accepted: dict[int, str] = {}  # submission id -> username
        self.completed: set[tuple[str, str]] = set()  # (username, slug) answered 200

    def add(self, kind: str, status: int, seconds: float) -> None:
        self.status[kind][status] += 1
        self.latency[kind].append(seconds * 1000)


async def one_user(http: httpx.AsyncClient, name: str, token: str, until: float, tally: Tally, source: str,
                   rng: random.Random) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    pending: int | None = None
    n = 0
    while time.monotonic() < until:
        await asyncio.sleep(rng.uniform(0.3, 1.5))  # think time
        roll = rng.random()
        t0 = time.perf_counter()
        try:
            if pending is not None and roll < 0.35:
                kind = "poll"
                r = await http.get(f"/api/submissions/{pending}", headers=auth)
                if r.status_code == 200 and r.json()["state"] in ("done", "awaiting_gpu"):
                    pending = None
            elif roll < 0.65:
                kind = "lesson"
                lang = rng.choice(("ko", "en"))
                r = await http.get(f"/{lang}/lessons/{rng.choice(SLUGS)}", headers=auth)
            elif roll < 0.85:
                kind = "progress"
                slug = rng.choice(SLUGS)
                r = await http.post(f"/api/progress/lessons/{slug}/complete", json={"lang": "en"}, headers=auth)
                if r.status_code == 200:
                    tally.completed.add((name, slug))
            else:
                kind = "submit"
                n += 1
                r = await http.post("/api/exercises/gemm/submissions", headers=auth,
                                    json={"source": source + f"\n// {name} {n}\n", "launch": LAUNCH})
                if r.status_code == 202:
                    pending = r.json()["id"]
                    tally.accepted[pending] = name
        except Exception as exc:  # connection-level failure: counted, never hidden
            tally.errors[type(exc).__name__] += 1
            continue
        tally.add(kind, r.status_code, time.perf_counter() - t0)


async def soak(server: Server, tokens: dict[str, str], seconds: float) -> Tally:
    import httpx

    tally = Tally()
    source = (PROJECT_ROOT / "kernels" / "gemm" / "naive.cu").read_text()
    limits = httpx.Limits(max_connections=len(tokens) + 10, max_keepalive_connections=len(tokens) + 10)
    async with httpx.AsyncClient(base_url=server.url, timeout=60, limits=limits) as http:
        until = time.monotonic() + seconds
        await asyncio.gather(*(one_user(http, name, token, until, tally, source, random.Random(i))
                               for i, (name, token) in enumerate(tokens.items())))
    return tally


def count_rows(db_url: str, tally: Tally) -> dict[str, Any]:
    from sqlalchemy import create_engine, text

    engine = create_engine(db_url)
    with engine.connect() as conn:
        sub_ids = {row[0] for row in conn.execute(text("SELECT id FROM submission"))}
        states: dict[str, int] = dict(conn.execute(text("SELECT state, COUNT(*) FROM submission GROUP BY state")).all())
        done_pairs = {(u, s) for u, s in conn.execute(text(
            "SELECT u.username, e.subject FROM event e JOIN user u ON u.id = e.user_id "
            "WHERE e.kind = 'lesson_completed'"))}
        paid_pairs = {(u, s) for u, s in conn.execute(text(
            "SELECT u.username, x.source_id FROM xp_entry x JOIN user u ON u.id = x.user_id "
            "WHERE x.source = 'lesson'"))}
    engine.dispose()
    lost_subs = set(tally.accepted) - sub_ids
    return {"submission_rows": len(sub_ids), "states": states,
            "lost_submissions": len(lost_subs), "extra_submission_rows": len(sub_ids - set(tally.accepted)),
            "lost_completions": len(tally.completed - done_pairs), "lost_xp": len(tally.completed - paid_pairs)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    ap.add_argument("--keep-log", default=None, help="copy the server's log to this file")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="mkc-soak-") as tmp:
        server = Server(Path(tmp), workers=args.workers, submission_per_hour="10000", submission_per_day="10000",
                        dispatcher_poll_seconds="0.2").start()
        try:
            tokens = add_users(server.db_url, [f"soak{i:03d}" for i in range(args.users)])
            started = time.monotonic()
            tally = asyncio.run(soak(server, tokens, args.seconds))
            elapsed = time.monotonic() - started
            rows = count_rows(server.db_url, tally)
            log_text = server.log.read_text(errors="replace")
            # the distinct error lines the server logged (e.g. "database is locked"), with counts
            log_errors = Counter(line.strip()[:160] for line in log_text.splitlines()
                                 if re.match(r"^\w*(Error|Exception)\b|^[\w.]+(Error|Exception):", line.strip()))
            log_tail = log_text[-2000:]
            if args.keep_log:
                Path(args.keep_log).write_text(log_text)
        finally:
            server.stop()

    total = sum(sum(c.values()) for c in tally.status.values())
    five = sum(n for c in tally.status.values() for s, n in c.items() if s >= 500)
    import os

    print(f"soak: {args.users} users, {elapsed:.1f} s, {args.workers} worker(s), {total} requests "
          f"({total / elapsed:.0f}/s), localhost; {os.cpu_count()} CPUs, load average at the end "
          f"{os.getloadavg()[0]:.1f} (other work on the machine inflates the latencies)")
    print(f"{'action':<9} {'requests':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}  statuses")
    for kind in ("lesson", "progress", "submit", "poll"):
        lat = tally.latency.get(kind, [])
        statuses = " ".join(f"{s}:{n}" for s, n in sorted(tally.status[kind].items()))
        print(f"{kind:<9} {len(lat):>8} {_pct(lat, .5):>8.1f} {_pct(lat, .95):>8.1f} {_pct(lat, .99):>8.1f}  {statuses}")
    print(f"connection errors: {dict(tally.errors) or 0}")
    print(f"5xx responses: {five}")
    print(f"submissions accepted (202): {len(tally.accepted)}; rows in the database: {rows['submission_rows']} "
          f"by state {rows['states']}")
    print(f"lost writes: submissions {rows['lost_submissions']}, lesson completions {rows['lost_completions']}, "
          f"lesson XP {rows['lost_xp']} (of {len(tally.completed)} completed pairs); "
          f"rows without a 202: {rows['extra_submission_rows']}")
    ok = five == 0 and not tally.errors and rows["lost_submissions"] == rows["lost_completions"] == rows["lost_xp"] == 0
    if log_errors:
        print("server log errors: " + "; ".join(f"{n}x {line}" for line, n in log_errors.most_common(8)))
    print("PASS" if ok else "FAIL")
    if not ok:
        print("server log tail:\n" + log_tail, file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
