"""Lesson page vs the bare FastAPI+Jinja2 baseline, measured with wrk, side by side.

    python -m app bench [--baseline-dir ../shared/bench/web_baseline] [--duration 10s]

Starts two single-worker uvicorn servers on free ports (ours on a throwaway SQLite file),
warms both up, runs ``wrk -t1 -c50 -d10s --latency`` against the same lesson URL on each,
one after the other, and prints req/s, p50, p99 and our share of the baseline's req/s.
Ours is measured twice: as wrk asks (no Accept-Encoding, the page goes uncompressed) and as a
browser asks (``Accept-Encoding: gzip, deflate, br``, the page goes compressed); then both again
for a signed-in reader (``--signed-out-only`` skips it). The load average is printed before and
after: the p99 targets mean something only on a quiet box.
Targets: ours >= 70% of the baseline's req/s and p99 < 100 ms; a browser's request >= 90% of the
uncompressed rate with p99 < 50 ms, signed out and signed in.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.bench.submissions_server import free_port
from app.core.config import PROJECT_ROOT
from app.core.proxies import UVICORN_ARGS
from app.core.serving import EVENT_LOOP

TARGET_RATIO = 0.70
TARGET_P99_MS = 100.0
TARGET_BROWSER_RATIO = 0.90  # a browser's (compressed) rate against wrk's (uncompressed) one
TARGET_BROWSER_P99_MS = 50.0
BROWSER_ENCODING = "gzip, deflate, br"  # what Chromium sends
DEFAULT_BASELINES = [PROJECT_ROOT.parent / "shared" / "bench" / "web_baseline", Path("/work/shared/bench/web_baseline")]


@dataclass
class WrkResult:
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    errors: str
    bytes_per_response: int


def _to_ms(value: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", value.strip())
    if not match:
        raise ValueError(f"unexpected wrk latency {value!r}")
    number, unit = float(match.group(1)), match.group(2)
    return number * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}[unit]


def _wrk_field(pattern: str, output: str) -> str:
    match = re.search(pattern, output, re.MULTILINE)
    if match is None:
        raise ValueError(f"wrk printed no line matching {pattern!r} (use wrk's --latency):\n{output[-2000:]}")
    return match.group(1)


def parse_wrk(output: str) -> tuple[float, float, float, str]:
    rps = float(_wrk_field(r"Requests/sec:\s+([\d.]+)", output))
    p50 = _to_ms(_wrk_field(r"^\s+50%\s+(\S+)", output))
    p99 = _to_ms(_wrk_field(r"^\s+99%\s+(\S+)", output))
    errors = " ".join(line.strip() for line in output.splitlines() if "Socket errors" in line or "Non-2xx" in line)
    return rps, p50, p99, errors


def _start(cmd: list[str], cwd: Path, env: dict[str, Any], url: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {' '.join(cmd)}\n{proc.stderr.read().decode(errors='replace') if proc.stderr else ''}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"server did not answer {url} within 60 s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def run_wrk(url: str, threads: int, connections: int, duration: str, cookie: str = "",
            accept_encoding: str = "") -> WrkResult:
    headers = {"Cookie": cookie} if cookie else {}
    if accept_encoding:
        headers["Accept-Encoding"] = accept_encoding
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as response:
        size = len(response.read())  # as sent: compressed when a coding was accepted
    header = [arg for name, value in headers.items() for arg in ("-H", f"{name}: {value}")]
    subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", "-d2s", *header, url], check=True, capture_output=True)  # warm-up
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}", "--latency", *header, url],
                         check=True, capture_output=True, text=True).stdout
    rps, p50, p99, errors = parse_wrk(out)
    return WrkResult(rps, p50, p99, errors, size)


def signed_in_cookie(database_url: str) -> str:
    """Migrate the bench database, create a learner with a session, return its cookie."""
    import datetime as dt

    from app.accounts import auth
    from app.accounts.users import create_user
    from app.core.db import make_engine, make_session_factory
    from app.core.migrate import upgrade_to_head

    engine = make_engine(database_url)
    upgrade_to_head(engine)
    with make_session_factory(engine)() as db:
        user = create_user(db, "bench-reader", "a long bench password 2026")
        token, _ = auth.start_session(db, user, dt.timedelta(hours=1))
        db.commit()
    engine.dispose()
    return f"{auth.SESSION_COOKIE}={token}"


def default_lesson_path() -> str:
    from app.lessons.catalog import load_catalog
    from app.templating import STATIC_DIR

    snapshot = load_catalog(PROJECT_ROOT / "lessons", STATIC_DIR, PROJECT_ROOT / "kernels")
    published = [lesson for lesson in snapshot.lessons if lesson.published]
    lesson = next((each for each in published if each.order == 4), published[0] if published else None)
    if lesson is None:
        raise SystemExit("no published lesson to benchmark")
    return f"/ko/lessons/{lesson.slug}"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages (Linux), to judge whether the box was quiet while measured."""
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="ascii").split()[:3])
    except OSError:
        return "unknown"


@dataclass
class BenchRun:
    """Everything one bench run measured: the baseline, and ours signed out and (unless skipped)
    signed in, each without and with a browser's Accept-Encoding."""

    path: str
    baseline: WrkResult
    plain: WrkResult
    browser: WrkResult
    signed: WrkResult | None = None
    signed_browser: WrkResult | None = None


def report(run: BenchRun, header: str) -> tuple[str, bool]:
    """The printed table and verdicts, and whether every target was met."""
    lines = [header, f"{'server':<10} {'URL':<40} {'bytes':>7} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}"]
    rows = [("baseline", "/ko/lessons/04", run.baseline), ("ours", run.path, run.plain), ("ours+br", run.path, run.browser)]
    if run.signed is not None and run.signed_browser is not None:
        rows += [("signed-in", run.path, run.signed), ("signed+br", run.path, run.signed_browser)]
    for name, url, r in rows:
        lines.append(f"{name:<10} {url:<40} {r.bytes_per_response:>7} {r.requests_per_s:>9.0f} {r.p50_ms:>8.1f} "
                     f"{r.p99_ms:>8.1f}" + (f"  {r.errors}" if r.errors else ""))
    lines.append(f"(+br: with a browser's Accept-Encoding: {BROWSER_ENCODING})")
    ratio = run.plain.requests_per_s / run.baseline.requests_per_s
    ok_ratio = ratio >= TARGET_RATIO
    ok_p99 = run.plain.p99_ms < TARGET_P99_MS
    lines.append(f"ratio ours/baseline: {ratio:.2f} (target >= {TARGET_RATIO:.2f}: {'met' if ok_ratio else 'MISSED'}); "
                 f"our p99 {run.plain.p99_ms:.1f} ms (target < {TARGET_P99_MS:.0f} ms: {'met' if ok_p99 else 'MISSED'})")
    line, browser_ok = _browser_line("signed out", run.plain, run.browser)
    lines.append(line)
    if run.signed is not None and run.signed_browser is not None:
        lines.append(f"signed-in reader: {run.signed.requests_per_s / run.baseline.requests_per_s:.2f} of baseline, "
                     f"p99 {run.signed.p99_ms:.1f} ms")
        line, signed_ok = _browser_line("signed in", run.signed, run.signed_browser)
        lines.append(line)
        browser_ok = browser_ok and signed_ok
    return "\n".join(lines), ok_ratio and ok_p99 and browser_ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-dir", type=Path, default=None, help="folder with the baseline main.py")
    parser.add_argument("--baseline-python", default=sys.executable, help="python that has fastapi+uvicorn+jinja2")
    parser.add_argument("--path", default=None, help="lesson URL path on our server (default: lesson 04 in Korean)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--signed-out-only", action="store_true",
                        help="skip the signed-in reader (measured by default: session lookup, progress, view event)")
    parser.add_argument("--signed-in", action="store_true", help=argparse.SUPPRESS)  # the default now; still accepted
    args = parser.parse_args(argv)

    if shutil.which("wrk") is None:
        print("wrk is not installed (Debian: apt-get install wrk)", file=sys.stderr)
        return 2
    baseline_dir = args.baseline_dir or next((d for d in DEFAULT_BASELINES if (d / "main.py").is_file()), None)
    if baseline_dir is None or not (baseline_dir / "main.py").is_file():
        print("baseline not found; pass --baseline-dir", file=sys.stderr)
        return 2
    path = args.path or default_lesson_path()

    ours_port, base_port = free_port(), free_port()
    uvicorn_args = ["--host", "127.0.0.1", "--no-access-log", "--log-level", "warning"]
    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="mkc-bench-") as data:
        database_url = f"sqlite:///{data}/bench.db"
        env = dict(os.environ, MKC_DATA_DIR=data, MKC_DATABASE_URL=database_url)
        cookie = "" if args.signed_out_only else signed_in_cookie(database_url)
        ours_url = f"http://127.0.0.1:{ours_port}{path}"
        base_url = f"http://127.0.0.1:{base_port}/ko/lessons/04"
        # ours runs as `python -m app serve` runs it (its event loop, no proxy headers); the baseline as it ships
        ours = _start([sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(ours_port), *uvicorn_args,
                       "--loop", EVENT_LOOP, *UVICORN_ARGS],
                      PROJECT_ROOT, env, ours_url)
        try:
            base = _start([args.baseline_python, "-m", "uvicorn", "main:app", "--port", str(base_port), *uvicorn_args],
                          baseline_dir, dict(os.environ), base_url)
            try:
                # One at a time, so the two servers never compete for the CPU while measured.
                def wrk(url: str, cookie: str = "", accept_encoding: str = "") -> WrkResult:
                    return run_wrk(url, args.threads, args.connections, args.duration, cookie, accept_encoding)

                run = BenchRun(path, wrk(base_url), wrk(ours_url), wrk(ours_url, accept_encoding=BROWSER_ENCODING))
                if cookie:
                    run.signed = wrk(ours_url, cookie)
                    run.signed_browser = wrk(ours_url, cookie, BROWSER_ENCODING)
            finally:
                _stop(base)
        finally:
            _stop(ours)

    header = (f"wrk -t{args.threads} -c{args.connections} -d{args.duration} --latency  ({os.cpu_count()} CPUs; "
              f"load average {load_before} before, 1/5/15 min)")
    text, ok = report(run, header)
    print(text)
    # The p99 targets need a quiet box: a second busy process on 2 cores doubles tail latency.
    print(f"load average {load_average()} after (1, 5, 15 min)")
    if args.check and not ok:
        return 1
    return 0


def _browser_line(who: str, plain: WrkResult, browser: WrkResult) -> tuple[str, bool]:
    """How a browser's compressed request compares with wrk's uncompressed one, and whether on target."""
    ratio = browser.requests_per_s / plain.requests_per_s
    ok = ratio >= TARGET_BROWSER_RATIO and browser.p99_ms < TARGET_BROWSER_P99_MS
    return (f"browser ({who}): {ratio:.2f} of the uncompressed rate (target >= {TARGET_BROWSER_RATIO:.2f}), "
            f"p50 {browser.p50_ms:.1f} ms against {plain.p50_ms:.1f}, p99 {browser.p99_ms:.1f} ms against "
            f"{plain.p99_ms:.1f} (target < {TARGET_BROWSER_P99_MS:.0f} ms): {'met' if ok else 'MISSED'}"), ok


if __name__ == "__main__":
    raise SystemExit(main())
