"""Rate limits hold under parallel requests. Before the fix they were check-then-insert:
20 parallel comments past a limit of 5 per minute gave 18 accepted, and 100 parallel wrong sign-ins past a
lockout of 8 were all checked against the password. Now a request takes a slot in the database
(app/accounts/ratelimit.py) atomically. Real servers (two uvicorn workers: the limit must hold across
processes) on a SQLite file and on PostgreSQL, real HTTP, parallel clients."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import func, select

from app.bench.submissions_server import Server, add_users
from app.comments.models import Comment
from app.core.db import make_engine
from tests.accounts.conftest import LESSON
from tests.hardening.live import form_csrf, post_signin


@pytest.fixture
def server(tmp_path, db_url):
    srv = Server(tmp_path / "srv", workers=2, database_url=db_url, dispatcher_enabled="false",
                 signin_user_limit="8/300", signin_ip_limit="1000/300").start()
    yield srv
    srv.stop()


def _parallel(n: int, call) -> list[int]:
    with ThreadPoolExecutor(n) as pool:
        return sorted(pool.map(lambda _: call(), range(n)))


def test_parallel_comments_stop_at_the_limit(server):
    token = add_users(server.db_url, ["kim"])["kim"]  # an API token: no CSRF needed
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        def post() -> int:
            return client.post(f"/api/lessons/{LESSON}/comments", json={"body": "hello", "lang": "en"}).status_code

        codes = _parallel(20, post)
    assert codes.count(201) == 5, codes  # CommentsConfig: 5 per minute
    assert set(codes) == {201, 429}, codes
    engine = make_engine(server.db_url)
    with engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(Comment)) == 5
    engine.dispose()


def test_parallel_wrong_signins_stop_at_the_lockout(server):
    add_users(server.db_url, ["lee"])
    with httpx.Client(base_url=server.url, timeout=120) as client:
        token = form_csrf(client, "/en/signin")  # the visitor's double-submit cookie

        def attempt() -> int:
            return post_signin(client, "lee", "wrong password!", token).status_code

        codes = _parallel(40, attempt)
        # the right password waits too: the lockout is on (IP, username)
        right = post_signin(client, "lee", token=token)
    assert codes.count(400) == 8, codes  # exactly the lockout's worth of passwords were checked
    assert codes.count(429) == 32, codes
    assert right.status_code == 429 and int(right.headers["Retry-After"]) > 0
