"""What the submissions, notifications and comments APIs tell a script: a job that is only waiting
for a GPU has no verdict yet; a final one reports the verdict that counts (a grader's override) with
the automatic one beside it, in the list too; every notification carries its sentence and link; a
comment posted with ?lang=en is English."""
from __future__ import annotations

from tests.panel.support import add_user, insert_graded, passed_result

from .conftest import gemm_source


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_job_waiting_for_a_gpu_has_no_verdict(sub_settings, make_client, api_for):
    client = make_client(sub_settings(dispatcher_enabled=True, dispatcher_gpu="off"))
    kim = api_for(client, "kim")
    sub = kim.submit(gemm_source("waits")).json()["id"]
    view = kim.wait(sub)
    assert view["state"] == "awaiting_gpu" and view["final"] is False
    assert view["verdict"] is None and view["automatic_verdict"] is None and view["overridden"] is False
    [listed] = client.get("/api/exercises/gemm/submissions", headers=kim.headers).json()["submissions"]
    assert listed["id"] == sub and listed["verdict"] is None


def test_an_override_is_the_verdict_with_the_automatic_one_beside_it(sub_settings, make_client):
    client = make_client(sub_settings())
    alice, gina = add_user(client.app, "alice"), add_user(client.app, "gina", "grader")
    sub = insert_graded(client.app, "alice", passed_result())
    before = client.get(f"/api/submissions/{sub}", headers=bearer(alice)).json()
    assert (before["verdict"], before["automatic_verdict"], before["overridden"]) == ("PASSED", "PASSED", False)

    r = client.post(f"/api/graders/submissions/{sub}/override", headers=bearer(gina),
                    json={"verdict": "WRONG_ANSWER", "reason": "hard-codes the 1024 case"})
    assert r.status_code in (200, 201), r.text
    one = client.get(f"/api/submissions/{sub}", headers=bearer(alice)).json()
    assert (one["verdict"], one["automatic_verdict"], one["overridden"]) == ("WRONG_ANSWER", "PASSED", True)
    [listed] = client.get("/api/exercises/gemm/submissions", headers=bearer(alice)).json()["submissions"]
    assert (listed["verdict"], listed["automatic_verdict"], listed["overridden"]) == ("WRONG_ANSWER", "PASSED", True)
    schema = client.get("/openapi.json").json()["components"]["schemas"]["SubmissionView"]["properties"]
    assert "automatic_verdict" in schema and "overridden" in schema
