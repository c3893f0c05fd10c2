"""XP follows a grader's override even when the learner passes again later: the ledger pays the
pass deed once, so the dispatcher rebalances the exercise after each new grading. The compile is
the real sandboxed NVRTC; only the GPU run is stubbed (tests/submissions' fake_gpu)."""
import time

from app.core.services import app_services
from tests.panel.support import add_user, insert_graded, passed_result, total_xp
from tests.submissions.conftest import fake_gpu, gemm_source  # noqa: F401  (fixture)


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def test_a_pass_after_a_revoked_pass_pays_again(app_client, fake_gpu):  # noqa: F811
    client = app_client(dispatcher_gpu="on")
    alice = add_user(client.app, "alice")
    gina = add_user(client.app, "gina", "grader")
    first = insert_graded(client.app, "alice", passed_result())
    assert total_xp(client.app, "alice") == 70
    r = client.post(f"/api/graders/submissions/{first}/override", headers=bearer(gina),
                    json={"verdict": "WRONG_ANSWER", "reason": "copied kernel"})
    assert r.json()["review"]["xp_delta"] == -70 and total_xp(client.app, "alice") == 0
    sub = client.post("/api/exercises/gemm/submissions", json={"source": gemm_source("own work")},
                      headers=bearer(alice)).json()["id"]
    deadline = time.monotonic() + 90
    while client.get(f"/api/submissions/{sub}", headers=bearer(alice)).json()["state"] != "done":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    deadline = time.monotonic() + 10
    # fake_gpu meets all three tiers: pass 40 + 10 + 20 + 20
    while total_xp(client.app, "alice") != 90:
        assert time.monotonic() < deadline, total_xp(client.app, "alice")
        time.sleep(0.05)
    # and nothing changes for learners nobody overrode
    bob = add_user(client.app, "bob")
    insert_graded(client.app, "bob", passed_result())
    from app.submissions.reviews import rebalance_after_grading
    with app_services(client.app).session_factory() as db:
        from sqlalchemy import select

        from app.accounts.models import User
        bob_id = db.scalar(select(User.id).where(User.username == "bob"))
        assert rebalance_after_grading(db, bob_id, "gemm", 999) == 0
    assert bob
