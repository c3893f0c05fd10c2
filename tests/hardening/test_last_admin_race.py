"""At least one administrator, whatever the timing. Before the fix two admins demoting
each other at once both counted two admins and both went ahead, leaving none. Real server (two uvicorn
workers), real sign-ins and CSRF forms, on a SQLite file and on PostgreSQL; several rounds."""
from __future__ import annotations

import threading

from sqlalchemy import func, select, update

from app.accounts.models import User
from app.bench.submissions_server import add_users
from app.core.db import make_engine
from tests.hardening.live import form_csrf, signed_in

ROUNDS = 6



def test_two_admins_demoting_each_other_leave_one(two_workers):
    add_users(two_workers.db_url, ["ada", "bob"], role="admin")
    engine = make_engine(two_workers.db_url)
    with engine.connect() as conn:
        ids = dict(conn.execute(select(User.username, User.id)).all())
    clients = {name: signed_in(two_workers.url, name) for name in ("ada", "bob")}
    try:
        for _ in range(ROUNDS):
            with engine.begin() as conn:
                conn.execute(update(User).values(role="admin"))
            forms = {name: form_csrf(client, "/en/admin/users") for name, client in clients.items()}
            barrier, codes = threading.Barrier(2), {}

            def demote(actor: str, target: str, barrier=barrier, codes=codes, forms=forms) -> None:
                barrier.wait()
                codes[actor] = clients[actor].post(f"/en/admin/users/{ids[target]}/role", follow_redirects=False,
                                                   data={"csrf_token": forms[actor], "role": "learner"}).status_code

            threads = [threading.Thread(target=demote, args=pair) for pair in (("ada", "bob"), ("bob", "ada"))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            with engine.connect() as conn:
                admins = conn.scalar(select(func.count()).select_from(User).where(User.role == "admin"))
            assert admins == 1, codes
            assert sorted(codes.values())[0] == 303 and sorted(codes.values())[1] in (403, 409), codes
    finally:
        for client in clients.values():
            client.close()
        engine.dispose()
