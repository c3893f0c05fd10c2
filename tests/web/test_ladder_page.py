"""The GEMM ladder on the site: /{lang}/ladder, the ``::: ladder`` lesson block, the SVG charts,
and the numbers' origin (results files of contract D; none typed into pages or lessons)."""
from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET

import pytest
import yaml
from fastapi.testclient import TestClient

from app.core.config import PROJECT_ROOT
from app.factory import create_app
from app.ladder.content import load_content, notes_paragraphs
from app.ladder.embed import parse_range
from app.ladder.results import newest_ladder
from app.lessons.measured import newest_for, render_measurement
from app.rendering.markdown import MEASURED_PATTERN, render_markdown
from kernels.ladder.rungs import discover

LADDER_DIR = PROJECT_ROOT / "kernels" / "ladder"
REAL_RESULTS = PROJECT_ROOT / "kernels" / "results"
RUNGS = discover(LADDER_DIR)
SVG_NS = "{http://www.w3.org/2000/svg}"
NOT_MEASURED = {"en": "Not measured on this server yet", "ko": "이 서버에서는 아직 측정하지 않았어요"}
LESSON_04, LESSON_05 = "naive-vs-tiled-gemm", "register-tiling-tensor-cores"


@pytest.fixture
def client_for(tmp_path, make_settings):
    """client_for(results_dir, **settings) -> a TestClient on a fresh app (temporary SQLite file)."""
    def make(results_dir, **overrides):
        return TestClient(create_app(make_settings(tmp_path, results_dir=results_dir, **overrides)),
                          raise_server_exceptions=True)
    return make


def _svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", html, re.S)]


def _bars(svg: ET.Element) -> list[ET.Element]:
    return [r for r in svg.iter(SVG_NS + "rect") if "chart__bar" in r.get("class", "").split()]


def _distinctive_results(folder, *, date="2031-01-02", gpu="Test GPU 9000", rate=77.7):
    """A ladder results file whose numbers appear nowhere else: every rung at 2048 and 4096."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for i, rung in enumerate(RUNGS):
        for n in (2048, 4096):
            entries.append({"exercise": "gemm", "kernel": rung.stem, "label": rung.title, "dtype": rung.dtype,
                            "size": {"M": n, "N": n, "K": n}, "median_ms": 1.2345 + i, "spread_ms": 0.01,
                            "work_rate": rate + i if n == 4096 else 3.21, "unit": "TFLOP/s",
                            "registers": 111, "shared_bytes": 12345, "vs_baseline": 0.4321,
                            "baseline": "cublas_hgemm" if rung.dtype == "f16" else "cublas_sgemm",
                            "baseline_timing": "gpu_hold"})
    for name, value in (("cublas_sgemm", 98.7), ("cublas_hgemm", 987.6)):
        for n in (2048, 4096):
            entries.append({"exercise": "gemm", "kernel": name, "label": name, "size": {"M": n, "N": n, "K": n},
                            "median_ms": 0.5, "spread_ms": 0.0, "work_rate": value, "unit": "TFLOP/s",
                            "registers": None, "shared_bytes": None, "vs_baseline": 1.0,
                            "baseline_timing": "gpu_hold"})
    doc = {"schema": "kernels-results/1", "kind": "ladder", "date": date, "gpu": {"name": gpu}, "entries": entries}
    (folder / f"test-gpu-{date}-ladder.json").write_text(json.dumps(doc), encoding="utf-8")
    return doc


# ---- data --------------------------------------------------------------------------------------

def test_descriptions_cover_every_rung_in_both_languages():
    data = yaml.safe_load((LADDER_DIR / "rungs.yaml").read_text(encoding="utf-8"))
    assert set(data) == {r.stem for r in RUNGS}, "rungs.yaml and kernels/ladder/NN_*.cu must list the same rungs"
    for stem, entry in data.items():
        for field in ("title", "teaches"):
            for lang in ("ko", "en"):
                assert str(entry[field][lang]).strip(), f"{stem}: {field}.{lang} is empty"
        assert entry["teaches"]["ko"] != entry["teaches"]["en"], f"{stem}: Korean text is a copy of the English"
        assert not re.search(r"\d+\.\d+\s*TFLOP", entry["teaches"]["en"] + entry["teaches"]["ko"]), \
            f"{stem}: measured numbers belong in results files, not in rungs.yaml"


def test_every_rung_has_its_notes_paragraph():
    notes = notes_paragraphs((LADDER_DIR / "NOTES.md").read_text(encoding="utf-8"))
    assert set(notes) == {r.stem for r in RUNGS}
    content = load_content(LADDER_DIR)
    assert [r.stem for r in content.rungs] == [r.stem for r in RUNGS]
    assert all(r.notes_markdown.startswith(f"**{r.stem}**") for r in content.rungs)
    assert "| target |" in content.targets_markdown


def test_newest_ladder_file_wins_and_measured_tables_ignore_ladder_files(tmp_path):
    old = _distinctive_results(tmp_path / "r", date="2030-05-05", gpu="Old GPU", rate=11.0)
    new = _distinctive_results(tmp_path / "r", date="2031-01-02", gpu="New GPU", rate=22.0)
    results = newest_ladder([old, new])
    assert (results.gpu_name, results.date, results.sizes, results.chart_size) == ("New GPU", "2031-01-02", ["2048", "4096"], "4096")
    assert results.rate("01_naive", "4096") == 22.0
    references = json.loads((REAL_RESULTS / "nvidia-h200-2026-11-22-references.json").read_text(encoding="utf-8"))
    # Ladder entries also say exercise "gemm"; the ::: measured gemm table must not list them.
    measured = newest_for([references, new], "gemm")
    assert {e["kernel"] for e in measured.entries} == {"naive", "tiled", "baseline"}
    assert newest_for([new], "gemm") is None


def test_range_parsing():
    assert parse_range("04-13") == (4, 13)
    assert parse_range("7-7") == (7, 7)
    assert parse_range("13-04") is None and parse_range("x-1") is None and parse_range("0-3") is None


# ---- charts ------------------------------------------------------------------------------------

def test_reference_chart_is_wellformed_with_a_bar_per_table_row():
    references = json.loads((REAL_RESULTS / "nvidia-h200-2026-11-22-references.json").read_text(encoding="utf-8"))
    for exercise in ("gemm", "gemm_fast"):
        measurement = newest_for([references], exercise)
        for lang in ("ko", "en"):
            html = render_measurement(measurement, lang)
            drawings = _svgs(html)
            assert [d.get("class") for d in drawings] == ["chart__svg chart__svg--wide", "chart__svg chart__svg--narrow"]
            ids = set()
            for svg in drawings:                                  # the same chart for wide and narrow screens
                assert svg.find(SVG_NS + "title").text and svg.find(SVG_NS + "desc").text
                assert svg.get("role") == "img"
                ids |= {svg.find(SVG_NS + "title").get("id"), svg.find(SVG_NS + "desc").get("id")}
                assert len(_bars(svg)) == len(measurement.entries)
            assert len(ids) == 4, "ids in one page must be unique"
            assert "NVIDIA H200" in html and "2026-11-22" in html


def test_markdown_ladder_container_becomes_a_marker():
    body = render_markdown("## A\n\n::: ladder 01-03\n:::\n\n::: ladder nonsense\n:::\n", "en")
    assert MEASURED_PATTERN.findall(body.html) == ["ladder:01-03"]
    assert body.measured == ["ladder:01-03"]


# ---- the page ----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["ko", "en"])
def test_ladder_page_lists_every_rung_with_source_numbers_and_chart(client_for, lang):
    with client_for(REAL_RESULTS) as client:
        response = client.get(f"/{lang}/ladder")
    assert response.status_code == 200
    html = response.text
    descriptions = yaml.safe_load((LADDER_DIR / "rungs.yaml").read_text(encoding="utf-8"))
    positions = []
    for rung in RUNGS:
        anchor = f'id="rung-{rung.number:02d}"'
        assert anchor in html
        positions.append(html.index(anchor))
        assert descriptions[rung.stem]["title"][lang].replace("'", "&#39;") in html
        assert f"kernels/ladder/{rung.path.name}" in html                 # highlighted source, titled
        assert f'id="notes-{rung.number:02d}"' in html                     # its NOTES.md paragraph
    assert positions == sorted(positions), "rungs must appear in ladder order"
    # sources stay out of the page until opened: each <details> names its fragment
    assert html.count('<figure class="code"') == 0 and len(html) < 200_000
    with client_for(REAL_RESULTS) as client:
        for rung in RUNGS:
            url = f"/{lang}/ladder/source/{rung.stem}"
            assert f'data-source-url="{url}"' in html
            fragment = client.get(url)
            assert fragment.status_code == 200 and fragment.text.startswith('<figure class="code"')
            assert f"kernels/ladder/{rung.path.name}" in fragment.text
            assert 'class="code__copy"' in fragment.text and '<span class="k">' in fragment.text  # Pygments + copy
        assert client.get(f"/{lang}/ladder/source/99_nope").status_code == 404
    # the newest run is shown (no MKC_RESULTS_GPU), the other GPU's run is named beside it
    # (H100's: its ladder and references of 2026-11-26 are the newest results; H200's are older)
    assert "NVIDIA H100 80GB HBM3" in html and "2026-11-26" in html
    assert re.search(r"(Also measured|다른 GPU에서도 측정했어요): NVIDIA H200 \(2026-11-25\)", html)
    assert "cuBLAS SGEMM" in html and "cuBLAS HGEMM" in html
    overview = _svgs(html[html.index('class="measured ladder__chart"'):])[0]
    bars = _bars(overview)
    assert [b.get("data-label") for b in bars] == [r.stem for r in RUNGS]   # one bar per rung, in order
    lines = [el for el in overview.iter(SVG_NS + "line") if "chart__line" in el.get("class", "")]
    # both cuBLAS lines: the H100's newest ladder (2026-11-26) timed cuBLAS with the GPU-side hold,
    # so its HGEMM times are trusted too (an older file's short HGEMM times were not)
    assert len([el for el in lines if el.find(SVG_NS + "title") is not None]) == 2
    assert f'href="/{lang}/ladder"' in html                                # the nav link
    assert ("GEMM 사다리" if lang == "ko" else "GEMM ladder") in html


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_numbers_come_from_the_results_file(tmp_path, client_for, lang):
    _distinctive_results(tmp_path / "results")
    with client_for(tmp_path / "results") as client:
        html = client.get(f"/{lang}/ladder").text
        lesson = client.get(f"/{lang}/lessons/{LESSON_05}").text
    assert "Test GPU 9000" in html and "2031-01-02" in html
    assert html.count("Test GPU 9000") > len(RUNGS) and html.count("2031-01-02") > len(RUNGS)  # chart + every rung
    assert "NVIDIA H200" not in html
    for i, rung in enumerate(RUNGS):
        assert f"{77.7 + i:.1f}" in html, rung.stem                           # TFLOP/s at 4096
    assert "43.2 %" in html and "12,345 B" in html and ">111<" in html
    assert "98.7" in html and "988" in html                                # the cuBLAS lines' labels
    overview = _svgs(html[html.index('class="measured ladder__chart"'):])[0]
    values = [t.text for t in overview.iter(SVG_NS + "text") if t.get("class") == "chart__value"]
    assert values == [f"{77.7 + i:.1f}" for i in range(len(RUNGS))]
    # The lesson block shows the same file's numbers for rungs 04..13.
    assert "Test GPU 9000" in lesson and f"{77.7 + 3:.1f}" in lesson and f"{77.7 + 12:.1f}" in lesson


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_missing_results_show_a_note_not_an_error(tmp_path, client_for, lang):
    with client_for(tmp_path / "no-such-folder") as client:
        page = client.get(f"/{lang}/ladder")
        lesson = client.get(f"/{lang}/lessons/{LESSON_04}")
    assert page.status_code == 200 and lesson.status_code == 200
    assert NOT_MEASURED[lang] in page.text and NOT_MEASURED[lang] in lesson.text
    assert page.text.count('id="rung-') >= len(RUNGS)          # the rungs and sources are still there
    assert "chart__bar" not in page.text
    assert f'href="/{lang}/ladder"' in lesson.text


def test_unknown_language_is_404(client_for):
    with client_for(REAL_RESULTS) as client:
        assert client.get("/fr/ladder").status_code == 404


# ---- lessons 04 and 05 -------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("slug,rungs,baselines", [(LESSON_04, range(1, 4), ["cuBLAS SGEMM"]),
                                                  (LESSON_05, range(4, 14), ["cuBLAS SGEMM", "cuBLAS HGEMM"])])
def test_lessons_render_measured_chart_and_ladder_block(client_for, lang, slug, rungs, baselines):
    with client_for(REAL_RESULTS) as client:
        html = client.get(f"/{lang}/lessons/{slug}").text
    assert "<!--measured:" not in html, "every placeholder must be filled in"
    measured = html[html.index('<figure class="measured">'):]
    assert _svgs(measured)[0].get("role") == "img"                      # the references chart
    embed = html[html.index('<figure class="ladder-embed measured">'):]
    embed = embed[:embed.index("</figure>")]
    table = embed[:embed.index("</table>")]
    links = re.findall(rf'href="/{lang}/ladder#rung-(\d\d)"', table)
    assert [int(n) for n in links] == list(rungs)
    assert re.findall(r'<tr class="ladder-table__baseline"><td>([^<]+)</td>', table) == baselines
    drawings = _svgs(embed)
    assert len(drawings) == 2
    for svg in drawings:
        assert [b.get("data-label") for b in _bars(svg)] == [r.stem for r in RUNGS if r.number in rungs]
    assert "NVIDIA H100 80GB HBM3" in embed and "2026-11-26" in embed
    assert f'<a href="/{lang}/ladder">' in embed


def test_lessons_do_not_type_ladder_numbers():
    """The ladder block is a placeholder: the lesson files carry the container, never its numbers."""
    ladder = json.loads((REAL_RESULTS / "nvidia-h200-2026-11-22-ladder.json").read_text(encoding="utf-8"))
    distinctive = {f'{e["work_rate"]:.1f}' for e in ladder["entries"] if e["work_rate"] > 100}
    for folder, spec in (("04-naive-vs-tiled-gemm", "01-03"), ("05-register-tiling-tensor-cores", "04-13"),
                         ("06-tensor-cores-hopper", "10-12"), ("06-tensor-cores-hopper", "13-16")):
        for lang in ("ko", "en"):
            text = (PROJECT_ROOT / "lessons" / folder / f"{lang}.md").read_text(encoding="utf-8")
            assert text.count(f"::: ladder {spec}\n:::") == 1
            assert not any(number in text for number in distinctive)


def test_page_cache_follows_a_new_results_file(tmp_path, client_for):
    results = tmp_path / "results"
    _distinctive_results(results, date="2030-05-05", gpu="First GPU")
    with client_for(results, debug=False) as client:
        assert "First GPU" in client.get("/en/ladder").text
        doc = copy.deepcopy(_distinctive_results(results, date="2031-01-02", gpu="Second GPU"))
        assert doc["gpu"]["name"] == "Second GPU"
        html = client.get("/en/ladder").text
    assert "Second GPU · 2031-01-02" in html and "First GPU ·" not in html
    assert "Also measured: First GPU (2030-05-05)" in html  # the older run is named, not shown


def test_signed_in_reader_gets_their_own_uncached_page(client_for):
    """A signed-in reader's header names them (the page is rendered for them, never cached)."""
    with client_for(REAL_RESULTS) as client:
        token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/en/signup").text).group(1)
        password = "correct horse battery"
        client.post("/en/signup", data={"csrf_token": token, "username": "ladderfan", "password": password,
                                        "password2": password, "tz": "UTC", "next": "/en/"}, follow_redirects=False)
        page = client.get("/en/ladder")
    assert page.status_code == 200
    assert "data-account-name>ladderfan<" in page.text
    assert page.headers["cache-control"] == "private, no-store"
    assert page.text.count('id="rung-') >= len(RUNGS)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_grading_gpus_numbers_are_shown_with_the_others_beside_them(tmp_path, lang):
    """MKC_RESULTS_GPU names the GPU this server grades on: its numbers are shown, the others named
    (H200 here: without the setting H100's newer results would be shown)."""
    from fastapi.testclient import TestClient

    from app.factory import create_app
    from tests.conftest import make_settings

    with TestClient(create_app(make_settings(tmp_path, results_dir=REAL_RESULTS, results_gpu="h200"))) as client:
        ladder = client.get(f"/{lang}/ladder").text
        lesson = client.get(f"/{lang}/lessons/naive-vs-tiled-gemm").text
    # the ladder shows H200's run of 2026-11-25, the lesson H200's references of 2026-11-22; the
    # H100's newest are its ladder of 2026-11-26 and its references of 2026-11-26 (hgemm's)
    for html, date, h100 in ((ladder, "2026-11-25", "2026-11-26"), (lesson, "2026-11-22", "2026-11-26")):
        assert re.search(rf"NVIDIA H200(에서 측정)? · {date}", html) and f"NVIDIA H100 80GB HBM3 ({h100})" in html
        assert "NVIDIA H100 80GB HBM3 ·" not in html


def test_korean_ladder_page_reads_korean_titles_and_header_summaries(client_for):
    """A Korean reader sees every rung title with Hangul, and the "from the source header" line in
    Korean (headers.ko.md's title line) marked lang="ko"; the English page keeps the file's line."""
    with client_for(REAL_RESULTS) as client:
        ko = client.get("/ko/ladder").text
        en = client.get("/en/ladder").text
    titles = re.findall(r'<h2 id="rung-\d\d-title"><span class="visually-hidden">[^<]*</span>([^<]*)</h2>', ko)
    assert len(titles) == len(RUNGS) and all(re.search("[가-힣]", t) for t in titles), titles
    assert "Shared memory 타일링" in ko and "이중 버퍼링" in ko
    assert ('<p class="ladder-rung__summary" lang="ko">' in ko
            and "A와 B의 32×32 tile을 shared memory에 올려 두고, load한 값 하나를 32번 다시 써요." in ko)
    assert "stage 32×32 tiles of A and B in shared memory and reuse each loaded value 32 times." in en
    assert '<p class="ladder-rung__summary" lang="ko">' not in en


def _without_graph(doc, baseline_ms):
    """The same file as a ladder run that timed cuBLAS with one plain call (no baseline_timing)."""
    for entry in doc["entries"]:
        entry.pop("baseline_timing", None)
        if entry["kernel"].startswith("cublas_"):
            entry["median_ms"] = baseline_ms
    return doc


def test_a_ratio_is_shown_only_where_its_cublas_time_holds_no_host_dispatch(tmp_path):
    from app.ladder.present import caption, compact_table, rung_table
    from app.ladder.results import newest_ladder

    graphed = newest_ladder([_distinctive_results(tmp_path / "a")])
    short = newest_ladder([_without_graph(_distinctive_results(tmp_path / "b"), 0.5)])
    long = newest_ladder([_without_graph(_distinctive_results(tmp_path / "c"), 2.5)])
    rung = load_content(LADDER_DIR).rungs[0]
    assert graphed.ratio(rung.stem, "4096") == 0.4321 and "43.2 %" in rung_table(rung, graphed, "en")
    assert short.ratio(rung.stem, "4096") is None and short.baseline_rate("cublas_sgemm", "4096") is None
    assert "43.2 %" not in rung_table(rung, short, "en") and "43.2 %" not in compact_table([rung], short, "en")
    assert "98.7" not in compact_table([rung], short, "en")                    # nor cuBLAS's own rate
    assert "host dispatch" in caption(short, "en") and "호스트" in caption(short, "ko")
    assert "host dispatch" not in caption(graphed, "en")
    assert long.ratio(rung.stem, "4096") == 0.4321 and "host dispatch" not in caption(long, "en")
