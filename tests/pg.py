"""A real PostgreSQL for the tests: Debian's ``postgresql`` package (installed by tests/run.sh),
``initdb`` + ``pg_ctl`` in a temporary folder on a free port, one server per test session and a
fresh database per test. Run as the ``postgres`` user when the tests run as root (initdb refuses
root), as the current user otherwise.

Where PostgreSQL is not installed the tests that need it skip with the reason, except in CI
(``CI=true``), where a missing PostgreSQL is a failure: CI must test both databases.
"""
from __future__ import annotations

import glob
import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import NoReturn

import pytest

from tests.scrape import first_group

PG_USER = "app"
_counter = itertools.count()


def bin_dir() -> Path | None:
    """The folder holding initdb/pg_ctl: PATH first, then Debian's /usr/lib/postgresql/<major>/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(first_group(r"/(\d+)/bin", p)))
    return Path(versions[-1]).parent if versions else None


def unavailable(reason: str) -> NoReturn:
    """Skip a test that needs PostgreSQL, or fail it in CI."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"PostgreSQL is required in CI: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL not available ({reason}); `bash tests/run.sh` installs Debian's postgresql")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PgServer:
    """One throw-away PostgreSQL cluster."""

    def __init__(self, binaries: Path):
        self.bin = binaries
        self.root = Path(tempfile.mkdtemp(prefix="mkc-pg-"))
        self.port = _free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            pw = pwd.getpwnam("postgres")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=self.root)

    def start(self) -> PgServer:
        data = self.root / "data"
        done = self._run("initdb", "-D", str(data), "-A", "trust", "-U", PG_USER, "-E", "UTF8", "--no-sync")
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr[-2000:]}")
        # Durability off: a test database is thrown away (speed matters on CI's two cores).
        # authentication_timeout: a connection that arrives while the server shuts down gets a child that
        # waits this long for the client's first packet, and a fast shutdown (pause, restart) waits for
        # that child. At the default 60 s one client that opened its socket then and sent nothing (workers
        # and pools reconnect the moment their connections are cut) held `pg_ctl restart` past its own
        # 60 s: the restart failed and left the server down.
        self.options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300 "
                        "-c authentication_timeout=10s")
        self.resume()
        return self

    def resume(self) -> None:
        """Start the server (again): after ``pause`` the same data, port and settings."""
        data = self.root / "data"
        done = self._run("pg_ctl", "-D", str(data), "-o", self.options, "-l", str(self.root / "log"), "-w", "start")
        if done.returncode != 0:
            log = (self.root / "log").read_text() if (self.root / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {done.stderr[-1000:]} {log[-2000:]}")

    def pause(self) -> None:
        """An outage: stop the server as an operator would (``pg_ctl stop -m fast``); ``resume`` ends it."""
        done = self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "fast", "-w", "stop", timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"pg_ctl stop failed: {done.stderr[-1000:]}")

    def restart(self) -> None:
        """``pg_ctl restart -m fast``: every connection is cut, the server is back within a second."""
        done = self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "fast", "-o", self.options,
                         "-l", str(self.root / "log"), "-w", "restart",
                         timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"pg_ctl restart failed: {done.stderr[-1000:]}")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "stop", timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{PG_USER}@127.0.0.1:{self.port}/{database}"

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={PG_USER} dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(sql)

    def create_database(self, hint: str = "t") -> str:
        """A new empty database; returns its SQLAlchemy URL."""
        name = re.sub(r"[^a-z0-9_]", "_", hint.lower())[:40] + f"_{next(_counter)}"
        self._admin(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        try:
            self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except Exception:  # a leftover database dies with the server at the session's end
            pass


def start_server() -> PgServer:
    binaries = bin_dir()
    if binaries is None:
        unavailable("initdb/pg_ctl not found")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("psycopg is not installed")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            unavailable("running as root and there is no 'postgres' user to run initdb as")
    return PgServer(binaries).start()
