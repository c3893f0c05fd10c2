"""The "Inside your kernel" section through the real app (HTTP, SQLite, templates) in both
languages, and the SASS diff of two submissions."""
from __future__ import annotations

import re
from html import unescape

import pytest

from app.core.config import PROJECT_ROOT
from app.core.services import app_services
from tests.panel.support import add_user, insert_graded, passed_result, wrong_result

from .support import stop_compiler, with_insight

NAIVE = (PROJECT_ROOT / "kernels/gemm/naive.cu").read_text()
TILED = (PROJECT_ROOT / "kernels/gemm/tiled.cu").read_text()


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module", autouse=True)
def _compiler_stopped():
    yield
    stop_compiler()


def test_result_fragment_shows_assembly_roofline_occupancy_and_hints(app_client):
    client = app_client(dispatcher_enabled=False)
    token = add_user(client.app, "alice")
    sub = insert_graded(client.app, "alice", with_insight(passed_result(), NAIVE), source=NAIVE)
    html = client.get(f"/en/panel/submissions/{sub}", headers=bearer(token)).text
    assert "Inside your kernel" in html and "data-insight" in html
    # every source line is listed, and the dot-product line owns the global loads
    dot = NAIVE.splitlines().index(next(line for line in NAIVE.splitlines() if "acc += A[" in line)) + 1
    assert f'data-src-line="{dot}" data-classes="' in html
    classes = re.search(rf'data-src-line="{dot}" data-classes="([^"]*)"', html).group(1).split()
    assert "global_load" in classes and "ffma" in classes
    assert re.search(rf'<li data-line="{dot}" class="is-global_load"><span class="ins__ln">{dot}</span><code>LDG\.E ', html)
    assert "global loads (LDG)" in html and "Global load widths per thread: 32-bit" in html
    # PTX view is there (hidden until chosen)
    assert 'data-ins-list="ptx" hidden' in html and "ld.global.f32" in html
    # roofline: server-rendered, accessible SVG with the three kernels
    svg = re.search(r'<svg class="roof".*?</svg>', html, re.S).group(0)
    assert 'role="img"' in svg and "<title id=\"roof-t\">Roofline of this GPU with your kernel</title>" in svg
    assert svg.count('class="roof__pt') == 3 and "Naive reference" in svg
    assert "compute-bound" in html
    # occupancy in words with the limiting resource
    assert re.search(r"blocks of 1024 threads fit on one SM: \d+ of 64 warp slots", html)
    # the GEMM-without-shared-memory hint, linked to its lesson section
    hint = re.search(r'<li class="ins__hint" data-hint="gemm_without_shared_reuse">(.*?)</li>', html, re.S).group(1)
    assert 'href="/en/lessons/naive-vs-tiled-gemm#tiled-gemm-share-the-loads"' in hint
    # counters were not asked for
    assert "Counters are collected only on request." in html


def test_korean_fragment(app_client):
    client = app_client(dispatcher_enabled=False)
    token = add_user(client.app, "bora")
    sub = insert_graded(client.app, "bora", with_insight(passed_result(), NAIVE,
                                                         counters={"available": False, "reason": "NCU_MISSING"}),
                        source=NAIVE)
    html = client.get(f"/ko/panel/submissions/{sub}", headers=bearer(token)).text
    text = unescape(html)
    assert "커널 들여다보기" in text and "소스 줄별 어셈블리" in text and "하드웨어 카운터" in text
    assert "이 서버에는 Nsight Compute(ncu)가 없어서" in text
    assert "이 GPU의 roofline과 내 커널" in text
    assert 'href="/ko/lessons/naive-vs-tiled-gemm#tiled-gemm-share-the-loads"' in html  # the English text's id, shared by both languages
    assert "A와 B의 tile을 shared memory에 올려" in text
    assert "Inside your kernel" not in html


def test_hint_links_reach_real_lesson_sections(app_client):
    client = app_client(dispatcher_enabled=False)
    from app.panel.insight import COUNTER_TEXTS, lesson_link
    from kernels.engine.insight import hints

    links = [(r["lesson"]["folder"], r["lesson"]["heading"]) for r in hints.rules()]
    links += [v[2] for v in COUNTER_TEXTS.values()]
    for folder, heading in links:
        for lang in ("en", "ko"):
            link = lesson_link(folder, heading, lang)
            path, anchor = link["href"].split("#")
            page = client.get(path)
            assert page.status_code == 200, link
            assert f'id="{anchor}"' in page.text, link


def test_counters_shown_with_sentences(app_client):
    client = app_client(dispatcher_enabled=False)
    token = add_user(client.app, "carol")
    counters = {"available": True, "reason": None, "tool": "ncu 2025.3.1", "size": {"M": 1024, "N": 1024, "K": 1024},
                "metrics": {"sectors_per_request": 2.5, "bank_conflicts_per_request": 0.0, "achieved_occupancy": 0.93,
                            "dram_bytes_read": 12582912.0, "dram_bytes_write": 4194304.0, "sm_throughput_pct": 71.2},
                "raw": {}}
    sub = insert_graded(client.app, "carol", with_insight(passed_result(), TILED, counters=counters), source=TILED)
    html = unescape(client.get(f"/en/panel/submissions/{sub}", headers=bearer(token)).text)
    assert "2.5 32-byte sectors per warp-wide load" in html
    assert "93% of the SM's warp slots were busy" in html
    assert "Measured once at M=1024 N=1024 K=1024 with ncu 2025.3.1." in html
    assert "uncoalesced_loads" not in html  # 2.5 sectors per request is coalesced: no hint


def test_old_results_without_insight_render_as_before(app_client):
    client = app_client(dispatcher_enabled=False)
    token = add_user(client.app, "dan")
    sub = insert_graded(client.app, "dan", passed_result())
    html = client.get(f"/en/panel/submissions/{sub}", headers=bearer(token)).text
    assert "data-insight" not in html and "Speedup of your kernel" in html
    sub2 = insert_graded(client.app, "dan", wrong_result())
    assert client.get(f"/ko/panel/submissions/{sub2}", headers=bearer(token)).status_code == 200


def test_sass_diff_of_two_submissions(app_client):
    client = app_client(dispatcher_enabled=False)
    token = add_user(client.app, "erin")
    a = insert_graded(client.app, "erin", with_insight(passed_result(), NAIVE), source=NAIVE)
    b = insert_graded(client.app, "erin", with_insight(passed_result(), TILED), source=TILED)
    html = unescape(client.get(f"/en/panel/diff?a={a}&b={b}", headers=bearer(token)).text)
    assert f"Machine code (SASS) from #{a} to #{b}" in html
    row = re.search(r'<tr data-cls="shared_load"><th scope="row">shared-memory loads \(LDS\)</th><td>0</td><td>(\d+)</td>', html)
    assert row and int(row.group(1)) > 0
    assert re.search(r'<span class="xdiff__add">\+BAR\.SYNC', html)
    # a diff with a submission that has no insight shows the source diff only
    c = insert_graded(client.app, "erin", passed_result(), source=TILED)
    html = client.get(f"/ko/panel/diff?a={a}&b={c}", headers=bearer(token)).text
    assert "data-sass-diff" not in html


def test_profile_this_makes_a_counted_submission(app_client):
    import json

    client = app_client(dispatcher_enabled=False, submission_per_hour=3)
    token = add_user(client.app, "fay")
    other = add_user(client.app, "gus")
    sub = insert_graded(client.app, "fay", with_insight(passed_result(), TILED), source=TILED)
    html = client.get(f"/en/panel/submissions/{sub}", headers=bearer(token)).text
    assert f'data-profile="{sub}"' in html and "Profile this kernel" in html
    # not for someone else's result (a grader's view shows no button either), nor for a failed one
    assert "data-profile=" not in client.get(f"/en/panel/submissions/{sub}", headers=bearer(other)).text
    bad = insert_graded(client.app, "fay", wrong_result(), source=TILED)
    assert "data-profile=" not in client.get(f"/en/panel/submissions/{bad}", headers=bearer(token)).text
    assert client.post(f"/api/panel/submissions/{sub}/profile", headers=bearer(other)).status_code == 404
    assert client.post("/api/panel/submissions/999999/profile", headers=bearer(token)).status_code == 404
    assert client.post(f"/api/panel/submissions/{sub}/profile").status_code == 401
    r = client.post(f"/api/panel/submissions/{sub}/profile", headers=bearer(token))
    assert r.status_code == 202
    new_id = r.json()["id"]
    row = client.get(f"/api/submissions/{new_id}", headers=bearer(token)).json()
    assert row["state"] == "queued"
    from app.submissions.models import Submission

    with app_services(client.app).session_factory() as db:
        stored = db.get(Submission, new_id)
        assert stored.source == TILED and json.loads(stored.launch)["profile"] is True
    # it counts against the hourly limit like any submission (3 per hour here: 2 graded + 1 profile)
    again = client.post(f"/api/panel/submissions/{sub}/profile?lang=ko", headers=bearer(token))
    assert again.status_code == 429 and again.json()["error"] == "hourly_limit"
    assert "시간" in again.json()["message"] or again.json()["message"]


def test_graders_see_the_section_with_its_script(app_client):
    client = app_client(dispatcher_enabled=False)
    learner = add_user(client.app, "hal")
    grader = add_user(client.app, "ivy", role="grader")
    sub = insert_graded(client.app, "hal", with_insight(passed_result(), NAIVE), source=NAIVE)
    html = client.get(f"/en/graders/submissions/{sub}", headers=bearer(grader)).text
    assert "data-insight" in html and "/static/js/insight.js" in html and "insight.css" in html
    assert "data-profile=" not in html  # only the owner may profile their kernel
    assert learner
