"""A learner's first write of a one-row-per-learner setting, sent many times at once (a double click, a
retrying client), stores one row and answers every request. Real server (two uvicorn workers), API
tokens, on a SQLite file and on PostgreSQL."""
from __future__ import annotations

import threading

import httpx

from app.bench.submissions_server import Server, add_users

PARALLEL = 12



def _at_once(server: Server, token: str, method: str, path: str, bodies: list[dict]) -> list[httpx.Response]:
    barrier, answers = threading.Barrier(len(bodies)), []

    def send(body: dict) -> None:
        with httpx.Client(base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {token}"}) as client:
            client.get("/api/me")  # the token's first use is recorded before the race, not inside it
            barrier.wait()
            answers.append(client.request(method, path, json=body))

    threads = [threading.Thread(target=send, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_notification_setting_sent_at_once(two_workers):
    for round_ in range(3):
        name = f"quiet{round_}"
        token = add_users(two_workers.db_url, [name])[name]
        answers = _at_once(two_workers, token, "PUT", "/api/notifications/settings", [{"mode": "off"}] * PARALLEL)
        assert sorted(a.status_code for a in answers) == [200] * PARALLEL, [a.text[:200] for a in answers]
        with httpx.Client(base_url=two_workers.url, headers={"Authorization": f"Bearer {token}"}) as client:
            assert client.get("/api/notifications").json()["mode"] == "off"


def test_board_profile_sent_at_once(two_workers):
    for round_ in range(3):
        name = f"shy{round_}"
        token = add_users(two_workers.db_url, [name])[name]
        bodies = [{"use_alias": True, "alias": f"alias{i}", "site_board": True} for i in range(PARALLEL)]
        answers = _at_once(two_workers, token, "PUT", "/api/boards/profile/me", bodies)
        assert sorted(a.status_code for a in answers) == [200] * PARALLEL, [a.text[:200] for a in answers]
        with httpx.Client(base_url=two_workers.url, headers={"Authorization": f"Bearer {token}"}) as client:
            kept = client.get("/api/boards/profile/me").json()
        assert kept["use_alias"] is True and kept["alias"] in {b["alias"] for b in bodies}


def test_an_unknown_notification_mode_is_refused_not_stored_as_another(two_workers):
    token = add_users(two_workers.db_url, ["picky"])["picky"]
    with httpx.Client(base_url=two_workers.url, headers={"Authorization": f"Bearer {token}"}) as client:
        assert client.put("/api/notifications/settings", json={"mode": "off"}).status_code == 200
        answer = client.put("/api/notifications/settings?lang=en", json={"mode": "all"})
        assert answer.status_code == 422 and answer.json()["params"]["fields"] == ["mode"]
        assert answer.json()["message"] == "Some fields are missing or have the wrong type. Check the form and try again."
        assert client.get("/api/notifications").json()["mode"] == "off"  # the choice made before stays
