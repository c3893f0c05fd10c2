"""Forwarded headers are believed only from configured proxies. Before the fix uvicorn
believed ``X-Forwarded-For`` from 127.0.0.1 (its default), so a visitor of a local server could name any
address for every request and per-IP limits (sign-up here: 2 per hour) never held. Real servers started
the two ways we start them: ``python -m app serve`` and the test/bench Server."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest

from app.bench.submissions_server import Server, free_port
from app.core.config import PROJECT_ROOT
from tests.hardening.live import PASSWORD, form_csrf


def _signup(url: str, name: str, forwarded_for: str) -> int:
    with httpx.Client(base_url=url, timeout=60) as client:
        return client.post("/en/signup", headers={"X-Forwarded-For": forwarded_for},
                           data={"csrf_token": form_csrf(client, "/en/signup"), "username": name, "password": PASSWORD,
                                 "password2": PASSWORD, "tz": "UTC", "next": "/en/"},
                           follow_redirects=False).status_code


@pytest.fixture
def served(tmp_path):
    """``python -m app serve`` as the README starts it, with no proxy configured."""
    port = free_port()
    env = dict(os.environ, MKC_DATA_DIR=str(tmp_path / "data"), MKC_DISPATCHER_ENABLED="false",
               MKC_SIGNUP_LIMIT="2/3600", MKC_DATABASE_URL=f"sqlite:///{(tmp_path / 'data' / 'app.db').as_posix()}")
    env.pop("MKC_TRUSTED_PROXIES", None)
    proc = subprocess.Popen([sys.executable, "-m", "app", "serve", "--port", str(port), "--no-access-log"],
                            cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


def test_a_visitor_cannot_pick_the_address_per_ip_limits_see(served):
    codes = [_signup(served, f"visitor{i}", f"203.0.113.{i}") for i in range(3)]
    assert codes == [303, 303, 429]  # all three came from 127.0.0.1, whatever they claimed


def test_a_configured_proxy_is_believed(tmp_path):
    server = Server(tmp_path / "srv", dispatcher_enabled="false", signup_limit="2/3600",
                    trusted_proxies="127.0.0.1").start()
    try:
        assert [_signup(server.url, f"learner{i}", f"203.0.113.{i}") for i in range(3)] == [303, 303, 303]
        # each learner has their own address now, and the limit holds per address
        assert [_signup(server.url, f"again{i}", "203.0.113.9") for i in range(3)] == [303, 303, 429]
    finally:
        server.stop()


def test_the_server_harness_believes_no_one_by_default(tmp_path):
    server = Server(tmp_path / "srv", dispatcher_enabled="false", signup_limit="2/3600").start()
    try:
        assert [_signup(server.url, f"learner{i}", f"203.0.113.{i}") for i in range(3)] == [303, 303, 429]
    finally:
        server.stop()
