"""Tables of numbers measured on this server, read from kernels/results/*.json (contract D).

``::: measured <exercise>`` in a lesson becomes the newest measurements for that exercise,
labelled with the GPU and the date, as a table and an SVG bar chart. ``::: ladder NN-MM`` comes
through here too (marker key "ladder:NN-MM", drawn by app/ladder/embed.py). Files are re-read
only when one of them changes (ResultsStore).
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from html import escape
from html import unescape as html_unescape
from pathlib import Path
from typing import Any

from app.core.filecache import FileCache, listing
from app.i18n import gettext_for
from app.ladder import charts

log = logging.getLogger(__name__)


def _text(lang: str) -> dict[str, str]:
    _ = gettext_for(lang)
    return {"kernel": _("Kernel"), "size": _("Size"), "median": _("Median (ms)"), "rate": _("Throughput"),
            "vs": _("vs baseline"), "caption": _("Measured on this server's {gpu} · {date}"),
            "chart_title": _("Throughput of each kernel, by problem size"),
            "chart_desc": _("Horizontal bar chart of the numbers in the table: one bar per kernel, grouped by problem size."),
            "none": _("No measurements on this server yet. Once the reference benchmark runs on the GPU, the table appears here."),
            "others": _("Also measured: {others}")}


@dataclass
class Measurement:
    gpu: str
    date: str
    entries: list[dict[str, Any]]


def _read_results(results_dir: Path) -> list[dict[str, Any]]:
    documents = []
    for path in sorted(results_dir.glob("*.json")) if results_dir.is_dir() else []:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("skipping unreadable results file %s: %s", path, exc)
            continue
        if isinstance(doc, dict) and str(doc.get("schema", "")).startswith("kernels-results/") and isinstance(doc.get("entries"), list):
            documents.append(doc)
    return documents


def newest_for(documents: list[dict[str, Any]], exercise: str) -> Measurement | None:
    """Entries for ``exercise`` from the newest date that has any (files of that date merged)."""
    best_date = ""
    best: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for doc in documents:
        if doc.get("kind") == "ladder":  # the GEMM ladder's rungs have their own block (::: ladder)
            continue
        date = str(doc.get("date", ""))
        entries = [e for e in doc["entries"] if isinstance(e, dict) and e.get("exercise") == exercise]
        if not entries:
            continue
        if date > best_date:
            best_date, best = date, [(doc, e) for e in entries]
        elif date == best_date:
            best += [(doc, e) for e in entries]
    if not best:
        return None
    gpu = str((best[0][0].get("gpu") or {}).get("name", "GPU"))
    return Measurement(gpu, best_date, [e for _, e in best])


def _fmt(value: Any, digits: int) -> str:  # value: a JSON number, or anything else (shown as "—")
    try:
        return f"{float(value):,.{digits}f}"
    except (TypeError, ValueError):
        return "—"


def _size(size: Any) -> str:  # a JSON size object, or a plain value
    if isinstance(size, dict) and size:
        if len(set(size.values())) == 1:  # a square problem reads better as M = N = K = 2048
            return escape(" = ".join(list(map(str, size)) + [str(next(iter(size.values())))]))
        return escape(", ".join(f"{k} = {v}" for k, v in size.items()))
    return escape(str(size or ""))


def gpu_of(doc: dict[str, Any]) -> str:
    return str((doc.get("gpu") or {}).get("name") or "GPU")


def for_gpu(documents: list[dict[str, Any]], preferred: str) -> list[dict[str, Any]]:
    """The results of one GPU: the one this server grades on (``preferred`` is part of its name, any
    case), else the GPU of the newest results. Every page then shows one GPU's numbers."""
    wanted = preferred.strip().lower()
    chosen = [d for d in documents if wanted and wanted in gpu_of(d).lower()]
    if chosen or not documents:
        return chosen
    newest = max(documents, key=lambda d: str(d.get("date", "")))
    return [d for d in documents if gpu_of(d) == gpu_of(newest)]


def others_line(all_documents: list[dict[str, Any]], shown: list[dict[str, Any]], kind: str | None, lang: str) -> str:
    """"Also measured: NVIDIA H200 (2026-11-22)" for the GPUs whose numbers are not the ones shown."""
    shown_gpus = {gpu_of(d) for d in shown}
    seen: dict[str, str] = {}
    for doc in all_documents:
        if (kind == "ladder") != (doc.get("kind") == "ladder") or gpu_of(doc) in shown_gpus:
            continue
        seen[gpu_of(doc)] = max(seen.get(gpu_of(doc), ""), str(doc.get("date", "")))
    if not seen:
        return ""
    return _text(lang)["others"].format(others=", ".join(f"{gpu} ({date})" for gpu, date in sorted(seen.items())))


# Row labels come from the results files in English (kernels/engine/gpu/bench_references.py);
# the Korean page shows them in Korean. A label missing here stays as written.
LABELS_KO = {
    "naive (one block per column, strided reads)": "naive (column마다 block 하나, strided 읽기)",
    "tiled (32 columns per block, coalesced, shared tile)": "tiled (block마다 column 32개, coalesced, shared 타일)",
    "device-to-device copy of the same bytes": "같은 바이트의 device-to-device 복사",
    "naive (one thread per output)": "naive (출력 하나에 thread 하나)",
    "tiled (32x32 shared tiles)": "tiled (32x32 shared 타일)",
    "cuBLAS SGEMM (cupy.matmul, float32)": "cuBLAS SGEMM (cupy.matmul, float32 행렬 곱)",
    "naive (one thread per row)": "naive (row마다 thread 하나)",
    "tiled (one block per row, coalesced, shuffles)": "tiled (row마다 block 하나, coalesced, shuffle)",
    "naive (direct, strided reads)": "naive (그대로 옮기기, strided 읽기)",
    "tiled (32x32 shared tile, padded)": "tiled (padding한 32x32 shared 타일)",
    "naive WMMA (one warp per 16x16 tile)": "naive WMMA (16x16 타일마다 warp 하나)",
    "tiled WMMA (64x64 block tiles)": "tiled WMMA (64x64 block 타일)",
    "cuBLAS HGEMM (cublasGemmEx, float16 in, float32 out)": "cuBLAS HGEMM (cublasGemmEx, float16 입력, float32 출력)",
}


def row_label(entry: dict[str, Any], lang: str) -> str:
    label = str(entry.get("label") or entry.get("kernel", ""))
    return LABELS_KO.get(label, label) if lang == "ko" else label


def render_measurement(measurement: Measurement | None, lang: str, others: str = "") -> str:
    t = _text(lang)
    if measurement is None:
        return f'<aside class="box box--measured box--empty"><p>{escape(t["none"])}</p></aside>'
    rows = []
    for e in measurement.entries:
        rate = f'{_fmt(e.get("work_rate"), 2)} {escape(str(e.get("unit", "")))}'
        vs = e.get("vs_baseline")
        vs_cell = f"{_fmt(vs, 2)}×" if vs is not None else "—"
        rows.append(f'<tr><td>{escape(row_label(e, lang))}</td><td>{_size(e.get("size"))}</td>'
                    f'<td class="num">{_fmt(e.get("median_ms"), 3)}</td><td class="num">{rate}</td><td class="num">{vs_cell}</td></tr>')
    caption = escape(t["caption"].format(gpu=measurement.gpu, date=measurement.date))
    if others:
        caption += f' <span class="measured__others">· {escape(others)}</span>'
    return (f'<figure class="measured"><div class="table-scroll"><table><thead><tr>'
            f'<th>{escape(t["kernel"])}</th><th>{escape(t["size"])}</th>'
            f'<th>{escape(t["median"])}</th><th>{escape(t["rate"])}</th><th>{escape(t["vs"])}</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'{_chart(measurement, t, lang)}<figcaption>{caption}</figcaption></figure>')


def _chart(measurement: Measurement, t: dict[str, str], lang: str = "en") -> str:
    """The table's work rates as bars, grouped by size (a heading row per size)."""
    rows: list[charts.Row] = []
    units = set()
    by_size: dict[str, list[dict[str, Any]]] = {}
    for e in measurement.entries:
        by_size.setdefault(html_unescape(_size(e.get("size"))), []).append(e)
    for size, entries in by_size.items():
        rows.append(charts.Row(label=size, heading=True))
        for e in entries:
            rate = e.get("work_rate")
            try:
                value = float(rate) if rate is not None else None
            except (TypeError, ValueError):
                value = None
            units.add(str(e.get("unit", "")))
            name = row_label(e, lang).split(" (")[0]
            kind = str(e.get("kernel")) if e.get("kernel") in ("naive", "tiled", "baseline") else "a"
            rows.append(charts.Row(label=name, value=value, kind=kind,
                                   tooltip=f"{name}, {size}: {charts.fmt_rate(value)} {e.get('unit', '')}"))
    chart = charts.Chart(chart_id=f"measured-{measurement.entries[0].get('exercise', 'x')}", title=t["chart_title"],
                         desc=t["chart_desc"], unit=" / ".join(sorted(units)), rows=rows)
    svg = charts.render_both(chart)  # wide and narrow drawings; CSS picks one
    return f'<div class="chart chart--measured">{svg}</div>' if svg else ""


@dataclass
class _Loaded:
    all: list[dict[str, Any]]  # every results file
    documents: list[dict[str, Any]]  # those of the shown GPU
    html: dict[tuple[str, str], str] = field(default_factory=dict)  # (marker key, lang) -> HTML


class ResultsStore:
    """The parsed results files, read again when one is added, removed or changed
    (app/core/filecache.py; checked at most once per ``recheck_s`` seconds)."""

    def __init__(self, results_dir: Path, ladder_dir: Path | None = None, preferred_gpu: str = "",
                 recheck_s: float = 0.0):
        self.results_dir = results_dir
        self.preferred_gpu = preferred_gpu  # MKC_RESULTS_GPU: show this GPU's numbers, the others beside them
        self.ladder_dir = ladder_dir or results_dir.parent / "ladder"  # rung files for ::: ladder
        self._files: FileCache[None, _Loaded] = FileCache(
            lambda _key: listing(self.results_dir, "*.json"), lambda _key: self._load(), recheck_s=recheck_s)

    def _load(self) -> _Loaded:
        documents = _read_results(self.results_dir)
        return _Loaded(documents, for_gpu(documents, self.preferred_gpu))

    @property
    def version(self) -> int:
        """Grows by one whenever the files change (pages key their caches on it)."""
        self._files.get(None)
        return self._files.version

    @property
    def documents(self) -> list[dict[str, Any]]:
        """The parsed results files of the shown GPU."""
        return self._files.get(None).documents

    def others(self, kind: str | None, lang: str) -> str:
        loaded = self._files.get(None)
        return others_line(loaded.all, loaded.documents, kind, lang)

    def html(self, exercise: str, lang: str) -> str:
        loaded = self._files.get(None)
        key = (exercise, lang)
        cached = loaded.html.get(key)
        if cached is None:
            if exercise.startswith("ladder:"):
                from app.ladder.embed import render_embed

                cached = render_embed(exercise[len("ladder:"):], loaded.documents, self.ladder_dir, lang)
            else:
                cached = render_measurement(newest_for(loaded.documents, exercise), lang,
                                            others_line(loaded.all, loaded.documents, None, lang))
            loaded.html[key] = cached
        return cached
