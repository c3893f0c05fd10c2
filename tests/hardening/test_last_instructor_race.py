"""A class keeps an instructor, whatever the timing. Two instructors of one class removing (or demoting)
each other at once must leave one: each counts the class's instructors before it goes ahead, so the
count must be taken under a lock the other change waits for. Real server (two uvicorn workers), real
API tokens, on a SQLite file and on PostgreSQL; several rounds."""
from __future__ import annotations

import threading

import httpx
import pytest
from sqlalchemy import delete, func, insert, select

from app.accounts.models import User
from app.bench.submissions_server import add_users
from app.classes.models import ClassMember
from app.core.clock import utcnow
from app.core.db import make_engine

ROUNDS = 8



@pytest.mark.parametrize("change", ["remove", "demote"])
def test_two_instructors_taking_each_other_off_leave_one(two_workers, change):
    tokens = add_users(two_workers.db_url, ["ada", "bob"], role="instructor")
    clients = {name: httpx.Client(base_url=two_workers.url, timeout=60, headers={"Authorization": f"Bearer {token}"})
               for name, token in tokens.items()}
    made = clients["ada"].post("/api/classes", json={"name": "GPU 101"})
    assert made.status_code == 201, made.text
    class_id = made.json()["id"]
    engine = make_engine(two_workers.db_url)
    with engine.connect() as conn:
        ids = dict(conn.execute(select(User.username, User.id)).all())
    try:
        for _ in range(ROUNDS):
            with engine.begin() as conn:  # both instructors again
                conn.execute(delete(ClassMember).where(ClassMember.class_id == class_id))
                conn.execute(insert(ClassMember), [
                    {"class_id": class_id, "user_id": ids[name], "role": "instructor", "source": "manual", "email": "",
                     "joined_at": utcnow()} for name in ("ada", "bob")])
            barrier, codes = threading.Barrier(2), {}

            def take_off(actor: str, target: str, barrier=barrier, codes=codes) -> None:
                client = clients[actor]
                barrier.wait()
                if change == "remove":
                    answer = client.delete(f"/api/classes/{class_id}/members/{ids[target]}")
                else:
                    answer = client.post(f"/api/classes/{class_id}/members", json={"username": target, "role": "learner"})
                codes[actor] = answer.status_code

            threads = [threading.Thread(target=take_off, args=pair) for pair in (("ada", "bob"), ("bob", "ada"))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            with engine.connect() as conn:
                left = conn.scalar(select(func.count()).select_from(ClassMember).where(
                    ClassMember.class_id == class_id, ClassMember.role == "instructor"))
            assert left == 1, codes
            assert sorted(codes.values())[1] in (403, 409), codes  # the second is refused
    finally:
        for client in clients.values():
            client.close()
        engine.dispose()
