"""Ladder numbers as HTML: the overview chart, the per-rung table and the compact lesson table.

Every number comes from a LadderResults (the newest results file of kind "ladder"); none is typed
here. Labels are gettext strings, so a page is rendered per language.
"""
from __future__ import annotations

from html import escape
from typing import Any

from app.i18n import gettext_for
from app.ladder import charts
from app.ladder.content import RungText
from app.ladder.results import BASELINE_NAMES, BASELINES, LadderResults


def texts(lang: str) -> dict[str, str]:
    _ = gettext_for(lang)
    return {
        "rung": _("Rung"), "size": _("Size"), "rate": _("TFLOP/s"), "ms": _("Time (ms)"),
        "pct": _("vs {baseline}"), "pct_short": _("vs cuBLAS at {size}"),
        "caption": _("Measured on this server's {gpu} · {date}"),
        "clocks_held": _("SM clocks held during every timing"),
        "clocks_fell": _("SM clocks fell during some timings: those numbers may be low"),
        "untrusted": _("— in place of cuBLAS: at that size its time held host dispatch, so no share of it is shown"),
        "none": _("Not measured on this server yet: the numbers appear here once the ladder benchmark has run on a GPU."),
        "chart_title": _("TFLOP/s per rung at M = N = K = %(size)s"),
        "chart_desc":
            _("Horizontal bar chart on a logarithmic scale: each rung's measured TFLOP/s at M = N = K = %(size)s; "
              "dashed lines mark cuBLAS SGEMM (for the float32 rungs) and cuBLAS HGEMM (for the half-precision rungs)."),
        "f32": _("float32 rung"), "f16": _("half-precision rung (Tensor Cores)"),
        "whole": _("The whole GEMM ladder: every rung's source and notes"),
        "unit_note": _("TFLOP/s at each size M = N = K"),
    }


def _pct(value: Any) -> str:  # a JSON value
    try:
        return f"{float(value) * 100:.1f} %"
    except (TypeError, ValueError):
        return "—"


def _int(value: Any) -> str:  # a JSON value
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return "—"


def baseline_of(rung: RungText) -> str:
    return BASELINES.get(rung.rung.dtype, "cublas_sgemm")


def overview_chart(rungs: list[RungText], results: LadderResults, lang: str, chart_id: str) -> str:
    """One bar per rung at the chart size, log scale, with the cuBLAS lines over the rungs they judge."""
    t = texts(lang)
    size = results.chart_size
    rows, lines = [], []
    for rung in rungs:
        value = results.rate(rung.stem, size)
        rows.append(charts.Row(label=rung.stem, value=value, kind=rung.rung.dtype,
                               tooltip=f"{rung.stem}: {charts.fmt_rate(value)} TFLOP/s"))
    for dtype, baseline in BASELINES.items():
        indexes = [i for i, r in enumerate(rungs) if r.rung.dtype == dtype]
        value = results.baseline_rate(baseline, size)
        if indexes and value:
            name = BASELINE_NAMES[baseline]
            lines.append(charts.Line(value=value, kind=dtype, first=min(indexes), last=max(indexes),
                                     tooltip=f"{name}: {charts.fmt_rate(value)} TFLOP/s"))
    legend = [charts.LegendItem(d, t[d]) for d in ("f32", "f16") if any(r.rung.dtype == d for r in rungs)]
    legend += [charts.LegendItem(ref_line.kind, ref_line.tooltip, line=True) for ref_line in lines]
    chart = charts.Chart(chart_id=chart_id, title=t["chart_title"] % {"size": size},
                         desc=t["chart_desc"] % {"size": size}, unit="TFLOP/s", rows=rows,
                         lines=lines, legend=legend, log=True)
    return charts.render_both(chart)


def caption(results: LadderResults, lang: str) -> str:
    t = texts(lang)
    text = t["caption"].format(gpu=results.gpu_name, date=results.date)
    if results.clocks_held is not None:  # older files did not record clocks: say nothing rather than guess
        text += " · " + t["clocks_held" if results.clocks_held else "clocks_fell"]
    if any(b in results.by_kernel and not results.baseline_trusted(b, s) for b in BASELINES.values() for s in results.sizes):
        text += " · " + t["untrusted"]
    return text


def rung_table(rung: RungText, results: LadderResults, lang: str) -> str:
    """Per size: TFLOP/s, time, % of the matching cuBLAS (SGEMM for float32, HGEMM for half)."""
    t = texts(lang)
    baseline = BASELINE_NAMES[baseline_of(rung)]
    rows = []
    for size in results.sizes:
        entry = results.entry(rung.stem, size)
        if entry is None:
            continue
        rows.append(f'<tr><td>{escape(size)}³</td><td class="num">{escape(charts.fmt_rate(results.rate(rung.stem, size)))}</td>'
                    f'<td class="num">{escape(_pct(results.ratio(rung.stem, size)))}</td>'
                    f'<td class="num">{escape(_ms(entry.get("median_ms")))}</td></tr>')
    if not rows:
        return ""
    return (f'<div class="table-scroll"><table class="ladder-table"><thead><tr><th>{escape(t["size"])}</th>'
            f'<th>{escape(t["rate"])}</th><th>{escape(t["pct"].format(baseline=baseline))}</th><th>{escape(t["ms"])}</th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _ms(value: Any) -> str:  # a JSON value
    try:
        return f"{float(value):,.3f}"
    except (TypeError, ValueError):
        return "—"


def resources(rung: RungText, results: LadderResults) -> dict[str, str]:
    entry = results.any_entry(rung.stem) or {}
    return {"registers": _int(entry.get("registers")), "shared_bytes": _int(entry.get("shared_bytes"))}


def compact_table(rungs: list[RungText], results: LadderResults, lang: str) -> str:
    """One row per rung: TFLOP/s at every size and % of its cuBLAS at the chart size; then the
    cuBLAS rows the rungs are compared with. (Registers and shared memory: on the ladder page.)"""
    t = texts(lang)
    size = results.chart_size
    head = "".join(f'<th class="num">{escape(s)}³</th>' for s in results.sizes)
    rows = []
    for rung in rungs:
        cells = "".join(f'<td class="num">{escape(charts.fmt_rate(results.rate(rung.stem, s)))}</td>' for s in results.sizes)
        name = escape(rung.title[lang])
        rows.append(f'<tr><td><a href="/{lang}/ladder#{rung.anchor}">{rung.number:02d}</a> {name}</td>{cells}'
                    f'<td class="num">{escape(_pct(results.ratio(rung.stem, size)))}</td></tr>')
    for baseline in dict.fromkeys(baseline_of(r) for r in rungs):
        if baseline not in results.by_kernel:
            continue
        cells = "".join(f'<td class="num">{escape(charts.fmt_rate(results.baseline_rate(baseline, s)))}</td>' for s in results.sizes)
        rows.append(f'<tr class="ladder-table__baseline"><td>{escape(BASELINE_NAMES[baseline])}</td>{cells}'
                    f'<td class="num">{escape(_pct(1.0 if results.baseline_trusted(baseline, size) else None))}</td></tr>')
    return (f'<div class="table-scroll"><table class="ladder-table ladder-table--compact"><thead><tr>'
            f'<th>{escape(t["rung"])}</th>{head}<th class="num">{escape(t["pct_short"].format(size=size + "³"))}</th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def not_measured(lang: str) -> str:
    return f'<aside class="box box--measured box--empty" data-ladder-empty><p>{escape(texts(lang)["none"])}</p></aside>'


def lesson_block(rungs: list[RungText], results: LadderResults | None, lang: str, chart_id: str) -> str:
    """What ``::: ladder NN-MM`` becomes in a lesson: compact table, chart, caption, link."""
    t = texts(lang)
    link = f'<p class="ladder-embed__link"><a href="/{lang}/ladder">{escape(t["whole"])} →</a></p>'
    if results is None or not any(r.stem in results.by_kernel for r in rungs):
        return f'<div class="ladder-embed">{not_measured(lang)}{link}</div>'
    return (f'<figure class="ladder-embed measured">{compact_table(rungs, results, lang)}'
            f'<div class="chart">{overview_chart(rungs, results, lang, chart_id)}</div>'
            f'<figcaption>{escape(caption(results, lang))} · {escape(t["unit_note"])}</figcaption>{link}</figure>')
