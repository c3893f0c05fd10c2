"""Settings of the web app from the environment (prefix ``MKC_``) or an optional ``.env`` file.

Every field is a row of the README's settings table (name, default, meaning): a test checks it
(tests/web/test_settings_documented.py), and that no other module reads an ``MKC_`` variable itself.
The grading engine's settings (compile architecture, sandbox, GPU) are its own model,
``kernels/engine/settings.py``, in kernels/README.md's table.

Everything that touches the disk (the data folder, the secret-key file) happens lazily,
when the app starts, so importing this module or building Settings has no side effects.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.i18n import LANGUAGES as LANGUAGES  # the site's languages (app.i18n names them)

# The repository root: app/core/config.py -> parents[2].
PROJECT_ROOT = Path(__file__).resolve().parents[2]
# A rate limit setting: "attempts/seconds" (e.g. "20/3600"), or several separated by commas.
RATE = r"^\d+/\d+(\.\d+)?$"
RATES = r"^\d+/\d+(\.\d+)?(,\d+/\d+(\.\d+)?)*$"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MKC_", env_file=".env", extra="ignore")

    site_name: str = "Matrix Kernels"
    # Where the SQLite database and the generated secret key live (relative to the cwd).
    data_dir: Path = Path("data")
    # Any SQLAlchemy URL; empty means a SQLite file inside data_dir.
    database_url: str = ""
    # Empty means: read data_dir/secret_key, creating it (0600) on first start.
    secret_key: str = ""
    lessons_dir: Path = PROJECT_ROOT / "lessons"
    results_dir: Path = PROJECT_ROOT / "kernels" / "results"
    # Lessons and the ladder page show the numbers of the GPU whose name contains this (e.g. "H200": the
    # GPU this server grades on), other GPUs' results named beside them; empty: the newest results.
    results_gpu: str = ""
    kernels_dir: Path = PROJECT_ROOT / "kernels"
    default_language: str = Field(default="ko", pattern="^(ko|en)$")
    # Apply pending Alembic migrations when the app starts (under a lock; see app/core/migrate.py).
    # `python -m app serve` migrates once and sets this false for its workers, which then only check
    # that the database is at the code's revision and refuse to start otherwise.
    migrate_on_start: bool = True
    # Authors may preview draft lessons locally; visitors never see them.
    show_drafts: bool = False
    # How often (seconds) the lesson catalog checks its files for changes.
    catalog_check_interval: float = 1.0
    # Where "report a problem" points; the link is hidden when empty.
    report_url: str = ""
    debug: bool = False
    # After start-up, move what start-up built (modules, catalog, templates) out of the cyclic garbage
    # collector's sight (gc.freeze): a full collection then scans only what requests made, instead of
    # pausing every request for ~100 ms once in a while. Tests turn it off: a frozen
    # app is never collected, and a test process builds hundreds of apps.
    freeze_heap: bool = True
    # Reverse proxies whose X-Forwarded-For/-Proto are believed (comma-separated IPs or networks);
    # empty believes no one, so no visitor can pick the address per-IP limits see (app/core/proxies.py).
    trusted_proxies: str = ""
    # /metrics (Prometheus): a scraper sends "Authorization: Bearer <metrics_token>", or connects from
    # one of metrics_allow (addresses or networks, comma-separated); anyone else gets 403.
    metrics_token: str = ""
    metrics_allow: str = "127.0.0.1,::1"

    # ---- LMS connections (app/lti) ----
    # Seconds between grade passback passes (find changed scores, send them to the LMS); 0 = off.
    lti_passback_seconds: float = Field(default=15.0, ge=0)

    # ---- accounts (app/accounts) ----
    # How long a sign-in lasts (hours; 336 = 14 days).
    session_hours: float = Field(default=14 * 24, gt=0)
    # Rate limits as "attempts/seconds" (database slots shared by every server process, app/accounts/ratelimit.py):
    # failed sign-ins per (IP, username) and per IP, sign-ups per IP.
    signin_user_limit: str = Field(default="8/300", pattern=RATE)
    signin_ip_limit: str = Field(default="40/300", pattern=RATE)
    signup_limit: str = Field(default="6/3600", pattern=RATE)
    # `python -m app create-admin` takes the new administrator's password from here when set.
    admin_password: SecretStr = SecretStr("")

    # ---- comments and problem reports (app/comments, app/reports) ----
    comment_max_length: int = Field(default=4000, gt=0)
    # Top-level comments per page (their replies come along).
    comment_page_size: int = Field(default=10, gt=0)
    # Comments one learner may post: a burst limit and an hourly one, "attempts/seconds,attempts/seconds".
    comment_limits: str = Field(default="5/60,30/3600", pattern=RATES)
    comment_reports_per_hour: int = Field(default=20, gt=0)
    comment_report_reason_max_length: int = Field(default=1000, gt=0)
    # "Report a problem" per visitor IP (hashed), "attempts/seconds".
    problem_report_limit: str = Field(default="5/600", pattern=RATE)
    problem_max_length: int = Field(default=2000, gt=0)
    # The lesson text a problem report quotes.
    problem_quote_max_length: int = Field(default=1000, gt=0)

    # ---- submissions (app/submissions) ----
    # Run a grading dispatcher inside each server process (only one holds a GPU at a time).
    # Turn off when a standalone `python -m app dispatcher` grades instead.
    dispatcher_enabled: bool = True
    # "auto" asks the engine whether a GPU is here; "off" only compiles (jobs wait in awaiting_gpu).
    dispatcher_gpu: str = Field(default="auto", pattern="^(auto|on|off)$")
    # The GPU a dispatcher binds (CUDA_VISIBLE_DEVICES) unless its process was started bound already.
    dispatcher_gpu_index: int = Field(default=0, ge=0)
    # Lane name; empty means "<host>:gpu<index>" (or "<host>:cpu" without a GPU).
    dispatcher_lane: str = ""
    dispatcher_poll_seconds: float = 0.5
    # A job (and a lane) whose holder stops renewing for this long is taken over.
    submission_lease_seconds: float = 60.0
    # A job claimed more often than this (it crashed its dispatchers) is finished as UNAVAILABLE.
    submission_max_attempts: int = 3
    # Per-user limits: jobs queued or running at once, and submissions per hour and per day.
    submission_max_in_flight: int = 1
    submission_per_hour: int = 30
    submission_per_day: int = 200

    # ---- cluster mode (app/cluster; README "Running a class") ----
    # How a job reaches a GPU. "embedded": the in-process dispatcher claims rows of the submission
    # table (one box, SQLite or PostgreSQL). "procrastinate": the web processes defer a job in the
    # same transaction as the row and `python -m app worker --gpu N` processes (any host) run them;
    # needs PostgreSQL.
    queue: str = Field(default="embedded", pattern="^(embedded|procrastinate)$")
    # A worker writes a heartbeat this often; one silent for worker_stalled_seconds is dead and its job
    # is handed to another worker (checked every few seconds by a periodic task).
    worker_heartbeat_seconds: float = 5.0
    worker_stalled_seconds: float = 30.0
    # How long a worker waits for an unreachable database (reconnecting with backoff) before it exits
    # non-zero for its supervisor to see; a finished job's result waits for the database as long.
    worker_database_patience_seconds: float = Field(default=300.0, ge=0)
    # Compile slots (CPU) per worker process; the host's compile pool is the sum over its workers.
    compile_slots: int = 2
    # Compile time one learner may use per hour; past it their next compile waits for the window.
    compile_budget_seconds: float = 120.0
    # CPU seconds of a compile's first try (its "slice"); one that runs past it comes back once with the full
    # MKC_COMPILE_CPU_S in a slot the other learners leave free, so a compile bomb holds a slot this long, not
    # the whole limit. The heaviest kernel here compiles in under 1 s of CPU. 0 (or not below
    # MKC_COMPILE_CPU_S): compiles are not sliced.
    compile_slice_seconds: float = Field(default=2.0, ge=0)
    # GPU time (checking and timing) one learner may use per hour, both modes; past it their next job
    # waits for the window while everyone else's run (app/submissions/gpu_budget.py). 0: no limit.
    gpu_budget_seconds: float = Field(default=60.0, ge=0)

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'app.db').as_posix()}"

    def ensure_data_dir(self) -> None:
        """Create the data folder when the database is a SQLite file inside it."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        url = self.resolved_database_url
        if url.startswith("sqlite:///") and ":memory:" not in url:
            Path(url[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)

    def load_secret_key(self) -> str:
        """The configured key, or one generated once and kept in data_dir/secret_key (0600)."""
        if self.secret_key:
            return self.secret_key
        path = self.data_dir / "secret_key"
        if path.exists():
            return path.read_text().strip()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        # O_EXCL: if two workers start at once, only one writes; the other reads its key.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_text().strip()
        with os.fdopen(fd, "w") as handle:
            handle.write(key + "\n")
        return key
