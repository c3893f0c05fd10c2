"""The panel's server side through real HTTP: exercise config, result fragments after the real
dispatcher compiled with NVRTC (compile error / awaiting_gpu), history, diff, permissions, and
the lesson page that mounts the panel."""
import re
import time

from tests.panel.support import add_user, cookie_login, insert_graded, passed_result
from tests.submissions.conftest import BROKEN_GEMM, gemm_source

LESSON = "/{lang}/lessons/naive-vs-tiled-gemm"


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def submit_and_wait(client, token, source, launch=None):
    body = {"source": source} if launch is None else {"source": source, "launch": launch}
    r = client.post("/api/exercises/gemm/submissions", json=body, headers=bearer(token))
    assert r.status_code == 202, r.text
    sub_id = r.json()["id"]
    deadline = time.monotonic() + 90
    while True:
        state = client.get(f"/api/submissions/{sub_id}", headers=bearer(token)).json()["state"]
        if state in ("done", "awaiting_gpu"):
            return sub_id
        assert time.monotonic() < deadline, f"stuck in {state}"
        time.sleep(0.05)


def test_exercise_config_has_starter_defaults_and_limits(app_client):
    client = app_client(dispatcher_enabled=False)
    config = client.get("/api/panel/exercises/gemm").json()
    assert "extern \"C\" __global__ void gemm" in config["starter"]
    assert config["launch_defaults"] == {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
    assert config["limits"]["max_threads"] == 1024
    assert client.get("/api/panel/exercises/nope").status_code == 404


def test_every_exercise_serves_a_korean_starter_with_the_same_code(app_client):
    """Korean pages open the editor on starter_ko: the English starter's code, line for line, with
    every comment in Korean (starter.ko.yaml translates each one)."""
    import re

    def code(source: str) -> list[str]:
        return [line.rstrip() for line in re.sub(r"//[^\n]*", "", source).split("\n") if line.strip()]

    client = app_client(dispatcher_enabled=False)
    from pathlib import Path

    exercises = sorted(p.parent.name for p in (Path(__file__).resolve().parents[2] / "kernels").glob("*/spec.yaml"))
    assert {"col_sum", "row_sum", "transpose", "gemm", "gemm_fast", "hgemm"} <= set(exercises)
    for exercise in exercises:
        config = client.get(f"/api/panel/exercises/{exercise}").json()
        comments_ko = re.findall(r"//([^\n]*)", config["starter_ko"])
        assert comments_ko and all(re.search("[가-힣]", c) for c in comments_ko if c.strip()), exercise
        assert not re.search("[가-힣]", config["starter"]), exercise
        assert code(config["starter_ko"]) == code(config["starter"]), exercise
    gemm_ko = client.get("/api/panel/exercises/gemm").json()["starter_ko"]
    assert "이 뼈대는 컴파일되고 실행되지만 아직 맞지 않아요" in gemm_ko


def test_compile_error_fragment_points_at_learner_lines_in_both_languages(app_client):
    client = app_client()
    token = add_user(client.app, "alice")
    sub_id = submit_and_wait(client, token, BROKEN_GEMM)
    en = client.get(f"/en/panel/submissions/{sub_id}", headers=bearer(token))
    assert en.status_code == 200
    assert 'data-verdict="COMPILE_ERROR"' in en.text
    assert 'data-jump-line="3"' in en.text and "Compile error" in en.text
    ko = client.get(f"/ko/panel/submissions/{sub_id}", headers=bearer(token)).text
    assert "컴파일 오류" in ko or "컴파일되지 않았어요" in ko


def test_awaiting_gpu_fragment_history_and_diff(app_client):
    client = app_client()
    token = add_user(client.app, "alice")
    first = submit_and_wait(client, token, BROKEN_GEMM)
    second = submit_and_wait(client, token, gemm_source("v2"))
    frag = client.get(f"/en/panel/submissions/{second}", headers=bearer(token)).text
    assert 'data-result-state="awaiting_gpu"' in frag and "Waiting for a GPU" in frag
    assert "Registers per thread" in frag  # the compile-only result carries resources
    history = client.get("/en/panel/exercises/gemm/history", headers=bearer(token)).text
    assert history.index(f'data-history-row="{second}"') < history.index(f'data-history-row="{first}"')
    assert "Compile error" in history
    diff = client.get(f"/en/panel/diff?a={second}&b={first}", headers=bearer(token)).text
    assert f"Changes from #{first} to #{second}" in diff
    assert 'class="xdiff__del">-    C[0] = A[0] +* ;' in diff
    assert 'class="xdiff__add">+' in diff


def test_others_cannot_see_fragments_or_diffs_and_visitors_must_sign_in(app_client):
    client = app_client(dispatcher_enabled=False)
    alice = add_user(client.app, "alice")
    bob = add_user(client.app, "bob")
    mine = insert_graded(client.app, "alice", passed_result())
    theirs = insert_graded(client.app, "bob", passed_result(), record=False)
    assert client.get(f"/en/panel/submissions/{theirs}", headers=bearer(alice)).status_code == 404
    assert client.get(f"/en/panel/diff?a={mine}&b={theirs}", headers=bearer(alice)).status_code == 404
    assert client.get(f"/en/panel/submissions/{mine}").status_code == 401
    assert client.get("/en/panel/exercises/gemm/history").status_code == 401
    history = client.get("/en/panel/exercises/gemm/history", headers=bearer(bob)).text
    assert f'data-history-row="{mine}"' not in history and f'data-history-row="{theirs}"' in history


def test_a_diff_of_ids_past_64_bits_is_refused_in_the_readers_language(app_client):
    client = app_client(dispatcher_enabled=False)
    token = add_user(client.app, "alice")
    mine = insert_graded(client.app, "alice", passed_result())
    for a, b in (("9223372036854775808", "1"), (str(mine), "9223372036854775808"), ("-1", str(mine)), ("x", "1")):
        en = client.get(f"/en/panel/diff?a={a}&b={b}", headers=bearer(token))
        assert en.status_code == 422 and "Some fields are missing or have the wrong type" in en.text, (a, b)
        ko = client.get(f"/ko/panel/diff?a={a}&b={b}", headers=bearer(token))
        assert ko.status_code == 422 and "형식이 맞지 않는 항목이 있어요" in ko.text, (a, b)
    # the largest id that fits is a well-formed question with no such row
    largest = client.get(f"/en/panel/diff?a=9223372036854775807&b={mine}", headers=bearer(token))
    assert largest.status_code == 404


def test_full_result_fragment(app_client):
    client = app_client(dispatcher_enabled=False)
    token = add_user(client.app, "alice")
    sub_id = insert_graded(client.app, "alice", passed_result(fast=True))
    html = client.get(f"/en/panel/submissions/{sub_id}", headers=bearer(token)).text
    assert html.count('class="xres__bar') == 3 and "<svg" in html
    assert "NVIDIA H200" in html and "Suspiciously fast" in html
    assert "3.60×" in html and "Naive reference" in html and "Median (ms)" in html
    assert re.search(r"XP earned</dt><dd data-xp-earned=\"70\">70</dd>", html)


def test_a_tier_below_one_reads_as_a_share_of_the_baseline(app_client):
    """The cuBLAS tier (0.5) reads "at least 50 % of the speed of", never "0.5× faster"."""
    client = app_client(dispatcher_enabled=False)
    token = add_user(client.app, "alice")
    sub_id = insert_graded(client.app, "alice", passed_result(fast=True))
    en = client.get(f"/en/panel/submissions/{sub_id}", headers=bearer(token)).text
    ko = client.get(f"/ko/panel/submissions/{sub_id}", headers=bearer(token)).text
    assert "at least 50% of the speed of" in en and "0.5× faster" not in en
    assert "속도의 50% 이상" in ko and "0.5배" not in ko
    assert "1.05× faster than" in en  # tiers above one keep their wording


def test_server_validates_launch_requests(app_client):
    client = app_client()
    token = add_user(client.app, "alice")
    bad = client.post("/api/exercises/gemm/submissions?lang=ko", headers=bearer(token),
                      json={"source": gemm_source(), "launch": {"block": [0, 1, 1], "tile": [1, 1], "smem": 0}})
    assert bad.status_code == 422 and bad.json()["error"] == "bad_launch"
    sub_id = submit_and_wait(client, token, gemm_source("big"), {"block": [64, 32, 1], "tile": [64, 32], "smem": 0})
    html = client.get(f"/en/panel/submissions/{sub_id}", headers=bearer(token)).text
    assert 'data-message-code="LAUNCH_TOO_MANY_THREADS"' in html
    assert "The block has 2048 threads; the GPU allows at most 1024 per block." in html


def test_lesson_page_mounts_the_panel_for_visitors_and_learners(app_client):
    client = app_client(dispatcher_enabled=False)
    add_user(client.app, "alice")
    page = client.get(LESSON.format(lang="en")).text
    assert 'data-panel data-exercise="gemm"' in page and "data-signin-to-submit" in page
    assert "editor/editor.js" in page and "js/panel.js" in page and "data-submit" not in page
    assert 'href="/en/signin?next=/en/lessons/naive-vs-tiled-gemm"' in page
    ko = client.get(LESSON.format(lang="ko")).text
    assert "로그인하고 제출하기" in ko
    browser, _ = cookie_login(client.app, "alice")
    signed_in = browser.get(LESSON.format(lang="en")).text
    assert "data-can-submit" in signed_in and "data-submit" in signed_in and "data-signin-to-submit" not in signed_in
    assert client.get("/static/editor/editor.js").status_code == 200


def test_queued_fragment_shows_position_and_explains(app_client):
    client = app_client(dispatcher_enabled=False)  # nothing grades: the rows stay queued
    tokens = [add_user(client.app, name) for name in ("alice", "bob")]
    ids = [client.post("/api/exercises/gemm/submissions", json={"source": gemm_source(str(i))},
                       headers=bearer(t)).json()["id"] for i, t in enumerate(tokens)]
    html = client.get(f"/en/panel/submissions/{ids[1]}", headers=bearer(tokens[1])).text
    assert 'data-result-state="queued"' in html and "position 2" in html and "taking turns" in html
    ko = client.get(f"/ko/panel/submissions/{ids[1]}", headers=bearer(tokens[1])).text
    assert "번갈아" in ko
