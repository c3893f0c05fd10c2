"""Server-side SVG bar charts (no JavaScript): horizontal bars, optional log scale, reference lines.

The SVG is inline in the page, so its colours come from CSS classes (static/css/ladder.css) that
follow the light and dark themes. Every chart has a <title> and <desc> (role="img"), every bar its
own <title> and a visible value label: the numbers are readable without the picture.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.sax.saxutils import escape as _xml_escape

WIDTH = 600
ROW = 22           # height of one bar row
BAR = 14           # bar thickness
FONT = 11


def esc(text: str) -> str:
    return _xml_escape(str(text), {'"': "&quot;"})


def fmt_rate(value: float | None) -> str:
    """Three significant figures or so: 0.50, 6.14, 42.6, 462."""
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


@dataclass
class Row:
    label: str
    value: float | None = None
    kind: str = "a"                 # CSS modifier of the bar: chart__bar--<kind>
    tooltip: str = ""
    heading: bool = False           # a group heading row: text only, no bar


@dataclass
class Line:
    value: float
    kind: str                       # chart__line--<kind>
    first: int                      # row indexes the line spans (inclusive)
    last: int
    tooltip: str = ""


@dataclass
class LegendItem:
    kind: str
    label: str
    line: bool = False              # a dashed line sample instead of a swatch


@dataclass
class Chart:
    chart_id: str
    title: str
    desc: str
    unit: str
    rows: list[Row]
    lines: list[Line] = field(default_factory=list)
    legend: list[LegendItem] = field(default_factory=list)
    log: bool = False


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:
        return [10.0 ** e for e in range(int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi))) + 1)]
    raw = hi / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [i * step for i in range(int(math.ceil(hi / step)) + 1)]


def _tick_label(value: float) -> str:
    if value >= 1:
        return f"{value:,.0f}" if value == int(value) else f"{value:g}"
    return f"{value:g}"


def render(chart: Chart) -> str:
    values = [r.value for r in chart.rows if r.value is not None and r.value > 0] + [l.value for l in chart.lines if l.value > 0]
    if not values:
        return ""
    label_chars = max((len(r.label) for r in chart.rows), default=10)
    x0 = min(230, 12 + int(label_chars * FONT * 0.58))   # where bars start
    x1 = WIDTH - 56                                      # room for value labels on the right
    if chart.log:
        ticks = _ticks(min(values), max(values), log=True)
        lo, hi = math.log10(ticks[0]), math.log10(ticks[-1])
        scale = lambda v: x0 + (math.log10(max(v, ticks[0])) - lo) / (hi - lo) * (x1 - x0)
    else:
        ticks = _ticks(0, max(values) * 1.02, log=False)
        scale = lambda v: x0 + v / ticks[-1] * (x1 - x0)

    top = 8
    rows_h = len(chart.rows) * ROW
    axis_y = top + rows_h + 4
    legend_y = axis_y + 36
    legend_rows = (len(chart.legend) + 1) // 2
    height = legend_y + legend_rows * 18 + 6
    title_id, desc_id = f"{chart.chart_id}-title", f"{chart.chart_id}-desc"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart__svg" viewBox="0 0 {WIDTH} {height}" '
           f'width="{WIDTH}" height="{height}" role="img" aria-labelledby="{title_id} {desc_id}" '
           f'font-size="{FONT}">',
           f'<title id="{title_id}">{esc(chart.title)}</title>',
           f'<desc id="{desc_id}">{esc(chart.desc)}</desc>']
    # grid and axis labels
    out.append('<g class="chart__grid">')
    for t in ticks:
        x = scale(t)
        out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{axis_y}"/>')
    out.append("</g><g class=\"chart__ticks\" text-anchor=\"middle\">")
    for t in ticks:
        out.append(f'<text x="{scale(t):.1f}" y="{axis_y + 14}">{esc(_tick_label(t))}</text>')
    scale_note = " (log)" if chart.log else ""
    # the unit sits left of the tick labels, under the row labels, where nothing else is drawn
    out.append(f'</g><text class="chart__unit" x="{x0 - 16}" y="{axis_y + 14}" text-anchor="end">{esc(chart.unit + scale_note)}</text>')
    # reference lines (e.g. cuBLAS) go under the bars' value labels, which carry a halo
    for line in chart.lines:
        x = scale(line.value)
        y_a, y_b = top + line.first * ROW + 1, top + (line.last + 1) * ROW - 1
        out.append(f'<line class="chart__line chart__line--{esc(line.kind)}" x1="{x:.1f}" y1="{y_a}" x2="{x:.1f}" y2="{y_b}">'
                   f'<title>{esc(line.tooltip)}</title></line>')
    # rows
    for i, row in enumerate(chart.rows):
        y = top + i * ROW
        mid = y + ROW / 2 + FONT * 0.35
        cls = "chart__label chart__label--heading" if row.heading else "chart__label"
        out.append(f'<text class="{cls}" x="{x0 - 8}" y="{mid:.1f}" text-anchor="end">{esc(row.label)}</text>')
        if row.heading:
            continue
        if row.value is None or row.value <= 0:
            out.append(f'<text class="chart__value chart__value--none" x="{x0 + 4}" y="{mid:.1f}">—</text>')
            continue
        x_end = scale(row.value)
        bar_y = y + (ROW - BAR) / 2
        tooltip = row.tooltip or f"{row.label}: {fmt_rate(row.value)} {chart.unit}"
        out.append(f'<rect class="chart__bar chart__bar--{esc(row.kind)}" data-label="{esc(row.label)}" x="{x0}" y="{bar_y:.1f}" '
                   f'width="{max(x_end - x0, 1.5):.1f}" height="{BAR}" rx="2"><title>{esc(tooltip)}</title></rect>')
        out.append(f'<text class="chart__value" x="{x_end + 4:.1f}" y="{mid:.1f}">{esc(fmt_rate(row.value))}</text>')
    # legend, two items per line
    for i, item in enumerate(chart.legend):
        lx = 12 + (i % 2) * (WIDTH // 2)
        ly = legend_y + (i // 2) * 18
        if item.line:
            out.append(f'<line class="chart__line chart__line--{esc(item.kind)}" x1="{lx}" y1="{ly - 4}" x2="{lx + 18}" y2="{ly - 4}"/>')
        else:
            out.append(f'<rect class="chart__swatch chart__bar--{esc(item.kind)}" x="{lx}" y="{ly - 10}" width="18" height="10" rx="2"/>')
        out.append(f'<text class="chart__legend" x="{lx + 24}" y="{ly}">{esc(item.label)}</text>')
    out.append("</svg>")
    return "".join(out)
