"""``python -m app``: help with no command, serve's help with defaults, a clear refusal when the port
is busy or a setting does not parse, and a start that says where its data lives and logs the app's
own lines (the dispatcher's) beside uvicorn's."""
from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from app.bench.submissions_server import free_port

ROOT = Path(__file__).resolve().parents[2]


def run_app(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_no_command_prints_help():
    done = run_app()
    assert done.returncode == 0 and "serve" in done.stdout and "migrate" in done.stdout and "usage" in done.stdout


def test_serve_help_gives_descriptions_and_defaults():
    text = run_app("serve", "--help").stdout
    assert "(default: 127.0.0.1)" in text and "(default: 8000)" in text and "web worker processes" in text


def test_a_busy_port_is_refused_before_starting(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = dict(os.environ, MKC_DATA_DIR=str(tmp_path))
        env.pop("MKC_DATABASE_URL", None)
        done = run_app("serve", "--port", str(port), env=env)
    assert done.returncode == 1
    assert f"cannot serve on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "Application startup complete" not in done.stderr + done.stdout


def test_a_setting_that_does_not_parse_is_named(tmp_path):
    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path), MKC_SIGNUP_LIMIT="lots")
    done = run_app("migrate", env=env)
    assert done.returncode == 2 and "MKC_SIGNUP_LIMIT" in done.stderr and "lots" in done.stderr
    assert "Traceback" not in done.stderr


def test_serve_prints_its_data_and_logs_the_dispatcher(tmp_path):
    port = free_port()
    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path / "data"), MKC_DISPATCHER_GPU="off", PYTHONUNBUFFERED="1")
    env.pop("MKC_DATABASE_URL", None)
    proc = subprocess.Popen([sys.executable, "-m", "app", "serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    try:
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("app.submissions.dispatcher" in line for line in lines):
            if selector.select(timeout=1):
                line = proc.stdout.readline()
                if not line:
                    break
                lines.append(line)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
    text = "".join(lines)
    assert f"data folder: {(tmp_path / 'data').resolve()}" in text
    assert "database:    sqlite:///" in text and f"serving on http://127.0.0.1:{port}/" in text
    assert "INFO app.submissions.dispatcher: dispatcher" in text, text


def test_serve_runs_uvicorn_on_asyncios_loop_without_proxy_headers(tmp_path, monkeypatch):
    """uvloop left single connections waiting up to ~0.5 s under load: serve picks
    asyncio's loop itself instead of leaving uvicorn to choose uvloop."""
    import uvicorn

    from app import cli

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda target, **options: calls.append((target, options)))
    monkeypatch.setenv("MKC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("MKC_DATABASE_URL", raising=False)
    monkeypatch.setenv("MKC_MIGRATE_ON_START", "true")  # serve sets it false for its workers; restored after
    assert cli.main(["serve", "--port", str(free_port())]) == 0
    (target, options), = calls
    assert target == "app.main:app" and options["loop"] == "asyncio" and options["proxy_headers"] is False
