"""A real server for tests and benchmarks: uvicorn in a subprocess on a free localhost port, with its own
temporary SQLite file (or a given database URL, e.g. PostgreSQL); users and API tokens written straight
into that database. The submissions tests, the benchmarks and the browser tests all start their servers
through ``Server``."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from app.core.config import PROJECT_ROOT
from app.core.proxies import UVICORN_ARGS


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    def __init__(self, workdir: Path, *, port: int | None = None, workers: int = 1,
                 app: str = "app.main:app", factory: bool = False, database_url: str = "", **settings: str):
        """``app`` is the uvicorn target (``factory=True`` when it names an app factory);
        ``database_url`` any SQLAlchemy URL (default: a SQLite file in ``workdir``);
        ``settings`` become MKC_ environment variables (lower-case names get the prefix)."""
        self.workdir = Path(workdir)
        self.app_target = ["--factory", app] if factory else [app]
        self.port = port or free_port()
        self.workers = workers
        self.url = f"http://127.0.0.1:{self.port}"
        self.db_path = self.workdir / "data" / "app.db"
        self.db_url = database_url or f"sqlite:///{self.db_path.as_posix()}"
        self.env = dict(os.environ, MKC_DATA_DIR=str(self.workdir / "data"), MKC_DATABASE_URL=self.db_url,
                        PYTHONUNBUFFERED="1")
        # Workers never migrate at start (two of them would race on a fresh database): start() runs the
        # prestart migration once. A caller may pass migrate_on_start="true" to test the locked path.
        self.env["MKC_MIGRATE_ON_START"] = "false"
        self.env.update({k if k.isupper() else f"MKC_{k.upper()}": str(v) for k, v in settings.items()})
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = self.workdir / "server.log"

    def migrate(self) -> None:
        """The prestart step, as ``python -m app serve`` does it: migrate once, before any worker starts."""
        subprocess.run([sys.executable, "-m", "app", "migrate"], cwd=PROJECT_ROOT, env=self.env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self, timeout: float = 60.0) -> Server:
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.env.get("MKC_MIGRATE_ON_START", "").lower() in ("0", "false", "no", "off"):
            self.migrate()
        cmd = [sys.executable, "-m", "uvicorn", *self.app_target, "--host", "127.0.0.1", "--port", str(self.port),
               "--no-access-log", "--log-level", "warning", *UVICORN_ARGS]
        if self.workers > 1:
            cmd += ["--workers", str(self.workers)]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(cmd, cwd=PROJECT_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def kill9(self) -> None:
        """kill -9 the whole server (every worker): no shutdown code runs."""
        if self.proc is None:
            raise RuntimeError("kill9() before start(): no server to kill")
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill9()


def add_users(db_url: str, names: list[str], role: str = "learner", *, token_only: bool = False) -> dict[str, str]:
    """username -> API token, written into the server's database. ``token_only``: no password (the
    hash is a value no password matches), which skips argon2 for the hundreds of learners of a class."""
    from app.accounts import auth as authn
    from app.accounts.models import User
    from app.accounts.users import create_user
    from app.core.clock import utcnow
    from app.core.db import make_engine, make_session_factory

    engine = make_engine(db_url)
    tokens = {}
    with make_session_factory(engine)() as db:
        for name in names:
            if token_only:
                user = User(username=name, username_key=name.lower(), password_hash="!token-only", role=role, tz="UTC",
                            progress_epoch=0, created_at=utcnow())
                db.add(user)
                db.flush()
            else:
                user = create_user(db, name, "correct horse battery", role=role)
            tokens[name], _ = authn.create_api_token(db, user, "bench")
        db.commit()
    engine.dispose()
    return tokens
