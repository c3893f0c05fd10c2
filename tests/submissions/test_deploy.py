"""The deployment files in deploy/ started for real: each systemd unit's ExecStart (with this checkout's
Python in place of /opt/mkc/.venv) against a real PostgreSQL, the compose file's commands through the
CLI's own parser, and the backup script's dump restored into a fresh database."""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.bench.submissions_server import free_port
from app.core.config import PROJECT_ROOT

from .test_cluster import rows

DEPLOY = PROJECT_ROOT / "deploy"


def unit(name: str) -> dict[str, str]:
    values = {}
    for line in (DEPLOY / "systemd" / name).read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def exec_start(name: str, instance: str = "0") -> list[str]:
    command = unit(name)["ExecStart"].replace("%i", instance).replace("%H", socket.gethostname())
    return [sys.executable if part == "/opt/mkc/.venv/bin/python" else part for part in command.split()]


def env_for(pg_url: str, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MKC_")}
    for line in (DEPLOY / "systemd" / "mkc.env.example").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            env[key] = value
    env.update(MKC_DATABASE_URL=pg_url, MKC_DATA_DIR=str(tmp_path / "data"))  # this test's database and folder
    return env


def test_every_unit_restarts_itself_and_the_gpu_worker_does_not_loop_on_a_missing_gpu():
    for name in ("mkc-web.service", "mkc-gpu-worker@.service", "mkc-compile-worker.service"):
        values = unit(name)
        assert values["Restart"] == "always" and values["EnvironmentFile"] == "/etc/mkc/mkc.env", name
    assert unit("mkc-gpu-worker@.service")["RestartPreventExitStatus"] == "2 3"


def test_the_units_start_against_postgresql(pg_url, tmp_path):
    """web: serves and is ready; compile worker: registers under its name and drains on SIGTERM (exit 0);
    GPU worker on a host without that GPU: exit 3, which its unit does not restart."""
    env = env_for(pg_url, tmp_path)
    port = free_port()
    web_cmd = [part if part != "8000" else str(port) for part in exec_start("mkc-web.service")]
    web_cmd[web_cmd.index("--workers") + 1] = "1"  # two CPU cores on CI
    web = subprocess.Popen(web_cmd, cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           start_new_session=True)
    compile_worker = None
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and web.poll() is None, web.stdout.read1().decode()
                time.sleep(0.3)
        assert ready.status_code == 200 and ready.json()["mode"] == "cluster"
        assert ready.json()["warnings"] == ["no live GPU worker: submissions wait"]
        compile_cmd = exec_start("mkc-compile-worker.service")
        compile_cmd[compile_cmd.index("--compile-slots") + 1] = "1"
        compile_worker = subprocess.Popen(compile_cmd, cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, start_new_session=True)
        name = f"{socket.gethostname()}:cpu"
        while not rows(pg_url, "SELECT name FROM grading_worker WHERE name = :n", n=name):
            assert time.monotonic() < deadline and compile_worker.poll() is None, compile_worker.stdout.read1().decode()
            time.sleep(0.2)
        assert httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).json()["workers"] == {"cpu": [name]}
        gpu = subprocess.run(exec_start("mkc-gpu-worker@.service", instance="99"), cwd=PROJECT_ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
        assert gpu.returncode == 3 and "no usable GPU 99" in gpu.stderr, gpu.stderr
        os.killpg(compile_worker.pid, signal.SIGTERM)
        assert compile_worker.wait(60) == 0
        assert rows(pg_url, "SELECT name FROM grading_worker") == []  # a drained worker removes its row
    finally:
        for proc in (web, compile_worker):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(30)


def test_the_compose_commands_are_the_cli_s_own():
    import yaml

    from app.cli import build_parser

    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"db", "web", "worker-gpu0"}
    for name in ("web", "worker-gpu0"):
        command = services[name]["command"]
        assert command[:3] == ["python", "-m", "app"], name
        build_parser().parse_args(command[3:])  # exits (SystemExit) on an option the CLI does not know
        assert services[name]["environment"]["MKC_QUEUE"] == "procrastinate"
        assert services[name]["restart"] == "unless-stopped"
    assert services["worker-gpu0"]["deploy"]["resources"]["reservations"]["devices"][0]["device_ids"] == ["0"]


def test_the_nginx_example_streams_events_unbuffered_and_hides_metrics():
    conf = (DEPLOY / "nginx" / "mkc.conf").read_text()
    events = re.search(r"location ~ \^/api/submissions/\[0-9\]\+/events\$ \{(.*?)\}", conf, re.S)
    assert events and "proxy_buffering off;" in events.group(1)
    assert re.search(r"location = /metrics \{\s*deny all;", conf)
    assert "X-Forwarded-For $proxy_add_x_forwarded_for" in conf and "ssl_certificate " in conf


def test_backup_and_restore_keep_every_row(pg_server, pg_url, tmp_path):
    from tests.pg import bin_dir

    if not shutil.which("pg_dump", path=str(bin_dir())) and not shutil.which("pg_dump"):
        pytest.skip("pg_dump not installed")
    subprocess.run([sys.executable, "-m", "app", "migrate"], cwd=PROJECT_ROOT, check=True, capture_output=True,
                   env=dict(os.environ, MKC_DATABASE_URL=pg_url, MKC_DATA_DIR=str(tmp_path / "data")))
    from app.bench.submissions_server import add_users

    add_users(pg_url, ["ann", "bob"], token_only=True)
    env = dict(os.environ, MKC_DATABASE_URL=pg_url, MKC_BACKUP_DIR=str(tmp_path),
               PATH=f"{bin_dir()}:{os.environ['PATH']}")
    done = subprocess.run(["sh", str(DEPLOY / "backup.sh")], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    dump = Path(done.stdout.strip())
    assert dump.is_file() and dump.parent == tmp_path
    restored = pg_server.create_database("restored")
    try:
        libpq = restored.replace("postgresql+psycopg://", "postgresql://")
        back = subprocess.run([str(bin_dir() / "pg_restore"), "--no-owner", "-d", libpq, str(dump)],
                              capture_output=True, text=True, timeout=120)
        assert back.returncode == 0, back.stderr
        assert [r[0] for r in rows(restored, 'SELECT username FROM "user" ORDER BY username')] == ["ann", "bob"]
        assert rows(restored, "SELECT version_num FROM alembic_version") == rows(pg_url, "SELECT version_num FROM alembic_version")
    finally:
        pg_server.drop_database(restored)
