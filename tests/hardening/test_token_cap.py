"""An account holds at most 20 working API tokens. Before the cap a learner could make them without end
(each is a way in, and the profile page lists every one); now the 21st is refused in the reader's
language until one is revoked, and tokens made at once cannot pass the cap together."""
from __future__ import annotations

import threading

import pytest

from app.bench.submissions_server import add_users
from tests.accounts.conftest import form_token, settings  # noqa: F401  (settings: SQLite and PostgreSQL)
from tests.hardening.live import form_csrf, signed_in
from tests.scrape import first_group

CAP = 20


def _make(client, name: str, lang: str = "en"):
    return client.post(f"/{lang}/profile/tokens", data={"csrf_token": form_token(client, f"/{lang}/profile"), "name": name})


def _live(client) -> int:
    return client.get("/en/profile").text.count("/revoke")


def test_the_21st_token_is_refused_until_one_is_revoked(user_client):
    for i in range(CAP):
        assert _make(user_client, f"t{i}").status_code == 200
    refused = _make(user_client, "one too many")
    assert refused.status_code == 409
    assert "This account already has as many working tokens as it may have." in refused.text
    ko = _make(user_client, "하나 더", lang="ko")
    assert ko.status_code == 409 and "이 계정이 가질 수 있는 만큼 토큰이 이미 있어요." in ko.text
    assert _live(user_client) == CAP
    page = user_client.get("/en/profile").text
    revoke = first_group(r'action="(/en/profile/tokens/\d+/revoke)"', page)
    assert user_client.post(revoke, data={"csrf_token": form_token(user_client, "/en/profile")},
                            follow_redirects=False).status_code == 303
    assert _make(user_client, "after revoking").status_code == 200
    assert _live(user_client) == CAP


@pytest.mark.parametrize("rounds", [2])
def test_tokens_made_at_once_stop_at_the_cap(two_workers, rounds):
    for round_ in range(rounds):
        name = f"many{round_}"
        add_users(two_workers.db_url, [name])  # one token already, as add_users makes it
        client = signed_in(two_workers.url, name)
        for i in range(CAP - 3):
            token = form_csrf(client, "/en/profile")
            assert client.post("/en/profile/tokens", data={"csrf_token": token, "name": f"t{i}"}).status_code == 200
        csrf = form_csrf(client, "/en/profile")
        barrier, codes = threading.Barrier(8), []

        def make(i: int, barrier=barrier, codes=codes, csrf=csrf, client=client) -> None:
            barrier.wait()
            codes.append(client.post("/en/profile/tokens", data={"csrf_token": csrf, "name": f"race{i}"}).status_code)

        threads = [threading.Thread(target=make, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(codes) == [200, 200] + [409] * 6, codes
        assert client.get("/en/profile").text.count("/revoke") == CAP
        client.close()
