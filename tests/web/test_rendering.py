"""Markdown conventions of contract A, and the measured-results tables of contract D."""
import json
import re

from fastapi.testclient import TestClient

from app.factory import create_app
from app.lessons.measured import newest_for, render_measurement
from app.rendering.code import parse_info
from app.rendering.markdown import render_markdown

SAMPLE = '''## 타일 — 두 번째 절

| kernel | ms |
|---|---|
| naive | 1.0 |

::: note
A **note**.
:::

::: warning
Careful.
:::

```cuda title="Naive GEMM (CUDA) — one thread per output"
extern "C" __global__ void gemm(const float* A) { int i = threadIdx.x; }
```

```cuda fragment title="Inner loop"
c += As[ty][k] * Bs[k][tx];
```

::: exercise
Write it.
:::

::: measured gemm
:::
'''


def test_fence_info_parsing():
    assert parse_info('cuda title="Naive GEMM"') == ("cuda", "Naive GEMM", set())
    assert parse_info('cuda fragment title="x y"') == ("cuda", "x y", {"fragment"})
    assert parse_info("text") == ("text", "", set())


def test_markdown_features():
    out = render_markdown(SAMPLE, "en")
    html = out.html
    assert out.headings == [(2, "타일-두-번째-절", "타일 — 두 번째 절")]
    assert '<div class="table-scroll"><table>' in html
    assert '<aside class="box box--note"><p class="box__label">Note</p>' in html
    assert 'box--warning' in html and 'box--exercise' in html
    assert '<span class="code__title">Naive GEMM (CUDA) — one thread per output</span><span class="code__lang">cuda</span>' in html
    assert html.count('class="code__copy"') == 2
    assert 'class="code code--fragment"' in html
    # Pygments marked the CUDA words (which token class each gets is Pygments' choice, and can change by release)
    assert re.search(r'<span class="[a-z]+">__global__</span>', html) and re.search(r'<span class="[a-z]+">threadIdx</span>', html)
    assert out.measured == ["gemm"] and "<!--measured:gemm-->" in html


def test_labels_follow_the_page_language():
    html = render_markdown(SAMPLE, "ko").html
    assert ">복사</button>" in html and '<p class="box__label">참고</p>' in html


def test_raw_html_in_lessons_is_escaped():
    html = render_markdown("<script>alert(1)</script>\n", "en").html
    assert "<script>" not in html


RESULTS = {
    "schema": "kernels-results/1", "kind": "references", "date": "2026-11-22",
    "gpu": {"name": "NVIDIA H200", "compute_capability": "9.0"},
    "entries": [
        {"exercise": "gemm", "kernel": "naive", "label": "naive (one thread per output)", "size": {"M": 1024, "N": 1024, "K": 1024},
         "median_ms": 0.37, "spread_ms": 0.01, "work_rate": 5.8, "unit": "TFLOP/s", "vs_baseline": 0.23},
        {"exercise": "transpose", "kernel": "naive", "label": "naive transpose", "size": {"rows": 4096, "cols": 4096},
         "median_ms": 0.2, "work_rate": 600, "unit": "GB/s", "vs_baseline": 0.5},
    ],
}


def test_newest_results_win():
    old = dict(RESULTS, date="2026-01-01", gpu={"name": "Old GPU"})
    m = newest_for([old, RESULTS], "gemm")
    assert m.gpu == "NVIDIA H200" and m.date == "2026-11-22" and len(m.entries) == 1
    assert newest_for([RESULTS], "col_sum") is None
    html = render_measurement(m, "en")
    assert "Measured on this server&#x27;s NVIDIA H200 · 2026-11-22" in html or "Measured on this server's NVIDIA H200 · 2026-11-22" in html
    assert "5.80 TFLOP/s" in html and "0.370" in html


def _lesson_with_measured(write_lesson, lessons_dir):
    body_en = "---\ntitle: Measured\nsummary: s\n---\n## Numbers\n\n::: measured gemm\n:::\n"
    body_ko = "---\ntitle: 측정\nsummary: s\n---\n## 숫자\n\n::: measured gemm\n:::\n"
    write_lesson(lessons_dir, 1, "measured", en=body_en, ko=body_ko)


def test_measured_block_without_results_says_so(tmp_path, lessons_dir, make_settings, write_lesson):
    _lesson_with_measured(write_lesson, lessons_dir)
    # a lesson this short fails `lessons check` (held back as a draft): shown on an author's machine
    with TestClient(create_app(make_settings(tmp_path, lessons_dir=lessons_dir, show_drafts=True))) as client:
        assert "No measurements on this server yet" in client.get("/en/lessons/measured").text
        assert "이 서버에서는 아직 측정한 결과가 없어요" in client.get("/ko/lessons/measured").text


def test_measured_block_shows_newest_results(tmp_path, lessons_dir, make_settings, write_lesson):
    _lesson_with_measured(write_lesson, lessons_dir)
    results = tmp_path / "results"
    results.mkdir()
    settings = make_settings(tmp_path, lessons_dir=lessons_dir, results_dir=results, show_drafts=True)
    with TestClient(create_app(settings)) as client:
        assert "No measurements" in client.get("/en/lessons/measured").text
        (results / "nvidia-h200-2026-11-22.json").write_text(json.dumps(RESULTS))
        (results / "broken.json").write_text("{not json")
        page = client.get("/en/lessons/measured").text
        assert "naive (one thread per output)" in page and "NVIDIA H200" in page and "2026-11-22" in page
        assert "naive transpose" not in page
        ko = client.get("/ko/lessons/measured").text
        assert "이 서버의 NVIDIA H200에서 측정" in ko
