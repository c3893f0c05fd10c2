"""Learners never see others' code; graders and admins can."""
from __future__ import annotations

from .conftest import gemm_source


def test_only_the_author_and_reviewers_see_a_submission(sub_settings, make_client, api_for):
    client = make_client(sub_settings())
    kim, lee = api_for(client, "kim"), api_for(client, "lee")
    grader, admin = api_for(client, "gina", role="grader"), api_for(client, "ada", role="admin")
    teacher = api_for(client, "ian", role="instructor")
    secret = gemm_source("kim's secret idea")
    sub_id = kim.submit(secret).json()["id"]

    assert kim.get(sub_id).json()["source"] == secret
    for outsider in (lee, teacher):
        response = outsider.get(sub_id)
        assert response.status_code == 404 and response.json()["error"] == "not_found"
        assert "secret" not in response.text
        assert outsider.client.get(f"/api/submissions/{sub_id}/events", headers=outsider.headers).status_code == 404
    missing = lee.get(sub_id + 1000)
    assert missing.status_code == 404 and missing.json() == lee.get(sub_id).json()  # same answer: no probing
    for reviewer in (grader, admin):
        assert reviewer.get(sub_id).json()["source"] == secret


def test_lists_show_only_my_own_and_no_code(sub_settings, make_client, api_for):
    client = make_client(sub_settings(submission_max_in_flight=5))
    kim, lee = api_for(client, "kim"), api_for(client, "lee")
    mine = [kim.submit(gemm_source(f"k{i}")).json()["id"] for i in range(2)]
    lee.submit(gemm_source("l"))
    listed = client.get("/api/exercises/gemm/submissions", headers=kim.headers).json()["submissions"]
    assert [s["id"] for s in listed] == mine[::-1]
    assert all("source" not in s and "result" not in s for s in listed)
    assert listed[-1]["state"] == "queued" and listed[-1]["position"] == 1 and listed[0]["position"] == 2
