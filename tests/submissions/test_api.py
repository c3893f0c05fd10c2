"""POST refusals: every one is a 4xx with a code and a bilingual message, and stores nothing.
Well-formed but over-the-limit launches are stored and graded by the engine instead."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from app.core.services import app_services
from app.submissions.models import Submission

from .conftest import GEMM_LAUNCH, gemm_source


def stored(client) -> int:
    with app_services(client.app).session_factory() as db:
        return db.scalar(select(func.count()).select_from(Submission))


@pytest.fixture
def kim(sub_settings, make_client, api_for):
    return api_for(make_client(sub_settings()), "kim")


def post_raw(kim, body: bytes, content_type="application/json", exercise="gemm", **headers):
    return kim.client.post(f"/api/exercises/{exercise}/submissions", content=body,
                           headers={**kim.headers, "Content-Type": content_type, **headers})


@pytest.mark.parametrize("body,status,code", [
    (b"{not json", 400, "bad_json"),
    (b"[1, 2]", 400, "bad_json"),
    (b'{"source": "x", "extra": 1}', 422, "unknown_field"),
    (b'{"launch": null}', 422, "source_missing"),
    (b'{"source": 42}', 422, "source_not_text"),
    (b'{"source": "   \\n  "}', 422, "source_empty"),
    (b'{"source": "x", "launch": [32, 1, 1]}', 422, "bad_launch"),
    (b'{"source": "x", "launch": {"block": [32, 32], "tile": [32, 32]}}', 422, "bad_launch"),
    (b'{"source": "x", "launch": {"block": [32, 32, 1], "tile": [32, 32], "smem": -1}}', 422, "bad_launch"),
    (b'{"source": "x", "launch": {"block": [32, 32, 1]}}', 422, "bad_launch"),
])
def test_malformed_requests_are_refused_and_not_stored(kim, body, status, code):
    response = post_raw(kim, body)
    assert response.status_code == status, response.text
    data = response.json()
    assert data["error"] == code and data["message"] and "params" in data
    assert stored(kim.client) == 0


def test_oversized_source_is_refused_with_its_size(kim):
    response = kim.submit("/" * (64 * 1024 + 1))
    assert response.status_code == 413
    data = response.json()
    assert data["error"] == "source_too_large" and data["params"] == {"bytes": 65537, "limit": 65536}
    assert "65537" in data["message"] and "64 KiB" in data["message"]
    assert kim.submit("//" + "x" * (64 * 1024 - 3) + "\n").status_code == 202  # exactly 64 KiB is accepted
    assert stored(kim.client) == 1


def test_oversized_body_is_refused_before_reading_it(kim):
    response = post_raw(kim, b'{"source": "' + b"a" * 500_000 + b'"}')
    assert response.status_code == 413 and response.json()["error"] == "body_too_large"
    assert stored(kim.client) == 0


def test_korean_and_english_messages(kim):
    en = post_raw(kim, b"{", **{"Accept-Language": "en"}).json()["message"]
    ko = post_raw(kim, b"{", **{"Accept-Language": "ko-KR,ko;q=0.9"}).json()["message"]
    assert en.startswith("The request body must be a JSON object")
    assert re.search("[가-힣]", ko) and ko != en
    assert kim.submit("x", exercise="no_such").json()["error"] == "unknown_exercise"
    big = kim.client.post("/api/exercises/gemm/submissions?lang=ko", json={"source": "/" * 70000},
                          headers=kim.headers).json()
    assert "70000바이트" in big["message"]


def test_unknown_exercise_is_404_and_not_stored(kim):
    response = kim.submit(gemm_source(), exercise="no_such_thing")
    assert response.status_code == 404 and response.json()["params"] == {"exercise": "no_such_thing"}
    assert stored(kim.client) == 0


def test_signed_out_and_bad_token_are_refused(kim):
    client = kim.client
    assert client.post("/api/exercises/gemm/submissions", json={"source": "x"}).status_code == 401
    bad = client.post("/api/exercises/gemm/submissions", json={"source": "x"},
                      headers={"Authorization": "Bearer mkc_nope"})
    assert bad.status_code == 401 and bad.json()["error"] == "bad_token"
    assert client.get("/api/submissions/1").status_code == 401
    assert stored(client) == 0


def test_cookie_callers_need_the_csrf_token(sub_settings, make_client):
    from .conftest import signup_cookie_client

    client = make_client(sub_settings())
    csrf = signup_cookie_client(client, "lee")
    body = {"source": gemm_source(), "launch": GEMM_LAUNCH}
    refused = client.post("/api/exercises/gemm/submissions", json=body)
    assert refused.status_code == 403 and refused.json()["error"] == "csrf"
    ok = client.post("/api/exercises/gemm/submissions", json=body, headers={"X-CSRF-Token": csrf})
    assert ok.status_code == 202 and ok.headers["location"] == f"/api/submissions/{ok.json()['id']}"
    assert stored(client) == 1


def test_launch_over_the_gpu_limits_is_stored_and_graded(sub_settings, make_client, api_for):
    kim = api_for(make_client(sub_settings(dispatcher_enabled=True)), "kim")
    response = kim.submit(gemm_source(), launch={"block": [64, 32, 1], "tile": [64, 32], "smem": 0})
    assert response.status_code == 202
    view = kim.wait(response.json()["id"])
    assert view["state"] == "done" and view["verdict"] == "RUNTIME_ERROR"
    assert view["result"]["message"] == {"code": "LAUNCH_TOO_MANY_THREADS", "params": {"threads": 2048, "limit": 1024}}


def test_policy_violations_are_graded_compile_errors(sub_settings, make_client, api_for):
    kim = api_for(make_client(sub_settings(dispatcher_enabled=True)), "kim")
    view = kim.wait(kim.submit('#include "/etc/passwd"\n' + gemm_source()).json()["id"])
    assert view["verdict"] == "COMPILE_ERROR" and view["result"]["message"]["code"] == "SOURCE_INCLUDE_FORBIDDEN"
    assert "root:" not in str(view["result"])


def test_openapi_documents_every_endpoint(kim):
    spec = kim.client.get("/openapi.json").json()
    paths = spec["paths"]
    assert "post" in paths["/api/exercises/{exercise_id}/submissions"]
    assert "get" in paths["/api/exercises/{exercise_id}/submissions"]
    assert "get" in paths["/api/submissions/{sub_id}"] and "get" in paths["/api/submissions/{sub_id}/events"]
    post = paths["/api/exercises/{exercise_id}/submissions"]["post"]
    assert "extern" in post["requestBody"]["content"]["application/json"]["example"]["source"]
    # 422 refusals are documented by the shared "4XX" {error, message, params} entry (app/core/openapi.py)
    assert {"413", "429", "4XX"} <= set(post["responses"])
    assert kim.client.get("/docs").status_code == 200
