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


@dataclass(frozen=True)
class Layout:
    """Wide: labels left of the bars (desktop). Narrow: each label above its bar, so a phone shows
    the chart at full size without scrolling sideways."""
    name: str
    width: int
    row: int            # height of one bar row
    heading_row: int    # height of a group heading row
    labels_left: bool
    legend_columns: int


WIDE = Layout("wide", WIDTH, ROW, ROW, True, 2)
NARROW = Layout("narrow", 340, 32, 22, False, 1)


def render_both(chart: Chart) -> str:
    """The wide and the narrow drawing of one chart; CSS shows the one that fits the screen."""
    wide = render(chart, WIDE)
    return wide + render(chart, NARROW) if wide else ""


def render(chart: Chart, layout: Layout = WIDE) -> str:
    values = [r.value for r in chart.rows if r.value is not None and r.value > 0] + [line.value for line in chart.lines if line.value > 0]
    if not values:
        return ""
    if layout.labels_left:
        label_chars = max((len(r.label) for r in chart.rows), default=10)
        x0 = min(230, 12 + int(label_chars * FONT * 0.58))   # where bars start
    else:
        x0 = 6
    x1 = layout.width - 48                                   # room for value labels on the right
    if chart.log:
        ticks = _ticks(min(values), max(values), log=True)
        lo, hi = math.log10(ticks[0]), math.log10(ticks[-1])

        def scale(v: float) -> float:
            return x0 + (math.log10(max(v, ticks[0])) - lo) / (hi - lo) * (x1 - x0)
    else:
        ticks = _ticks(0, max(values) * 1.02, log=False)

        def scale(v: float) -> float:
            return x0 + v / ticks[-1] * (x1 - x0)

    top = 8
    row_top, y = [], top                                      # each row's top edge
    for row in chart.rows:
        row_top.append(y)
        y += layout.heading_row if row.heading else layout.row
    axis_y = y + 4
    unit_below = not layout.labels_left                       # no free space left of the ticks
    legend_y = axis_y + (50 if unit_below else 36)
    legend_rows = (len(chart.legend) + layout.legend_columns - 1) // layout.legend_columns
    height = legend_y + legend_rows * 18 + 6
    suffix = "" if layout is WIDE else f"-{layout.name}"
    title_id, desc_id = f"{chart.chart_id}{suffix}-title", f"{chart.chart_id}{suffix}-desc"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart__svg chart__svg--{layout.name}" '
           f'viewBox="0 0 {layout.width} {height}" width="{layout.width}" height="{height}" role="img" '
           f'aria-labelledby="{title_id} {desc_id}" font-size="{FONT}">',
           f'<title id="{title_id}">{esc(chart.title)}</title>',
           f'<desc id="{desc_id}">{esc(chart.desc)}</desc>']
    # grid and axis labels
    out.append('<g class="chart__grid">')
    for t in ticks:
        x = scale(t)
        out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{axis_y}"/>')
    out.append("</g><g class=\"chart__ticks\" text-anchor=\"middle\">")
    for t in ticks:
        out.append(f'<text x="{max(scale(t), 10):.1f}" y="{axis_y + 14}">{esc(_tick_label(t))}</text>')
    unit = chart.unit + (" (log)" if chart.log else "")
    if unit_below:
        out.append(f'</g><text class="chart__unit" x="{x1:.1f}" y="{axis_y + 30}" text-anchor="end">{esc(unit)}</text>')
    else:  # left of the tick labels, under the row labels, where nothing else is drawn
        out.append(f'</g><text class="chart__unit" x="{x0 - 16}" y="{axis_y + 14}" text-anchor="end">{esc(unit)}</text>')
    # reference lines (e.g. cuBLAS) go under the bars' value labels, which carry a halo
    for line in chart.lines:
        x = scale(line.value)
        y_a = row_top[line.first] + 1
        y_b = row_top[line.last] + layout.row - 1
        out.append(f'<line class="chart__line chart__line--{esc(line.kind)}" x1="{x:.1f}" y1="{y_a}" x2="{x:.1f}" y2="{y_b}">'
                   f'<title>{esc(line.tooltip)}</title></line>')
    # rows
    for row, y in zip(chart.rows, row_top, strict=False):
        cls = "chart__label chart__label--heading" if row.heading else "chart__label"
        if layout.labels_left:
            mid = y + layout.row / 2 + FONT * 0.35
            bar_y = y + (layout.row - BAR) / 2
            out.append(f'<text class="{cls}" x="{x0 - 8}" y="{mid:.1f}" text-anchor="end">{esc(row.label)}</text>')
        else:
            label_y = y + (layout.heading_row if row.heading else 12) - (6 if row.heading else 0)
            bar_h = BAR - 2
            bar_y = y + 15
            mid = bar_y + bar_h / 2 + FONT * 0.35
            out.append(f'<text class="{cls}" x="{x0}" y="{label_y:.1f}">{esc(row.label)}</text>')
        if row.heading:
            continue
        if row.value is None or row.value <= 0:
            out.append(f'<text class="chart__value chart__value--none" x="{x0 + 4}" y="{mid:.1f}">—</text>')
            continue
        x_end = scale(row.value)
        tooltip = row.tooltip or f"{row.label}: {fmt_rate(row.value)} {chart.unit}"
        height_bar = BAR if layout.labels_left else BAR - 2
        out.append(f'<rect class="chart__bar chart__bar--{esc(row.kind)}" data-label="{esc(row.label)}" x="{x0}" y="{bar_y:.1f}" '
                   f'width="{max(x_end - x0, 1.5):.1f}" height="{height_bar}" rx="2"><title>{esc(tooltip)}</title></rect>')
        out.append(f'<text class="chart__value" x="{x_end + 4:.1f}" y="{mid:.1f}">{esc(fmt_rate(row.value))}</text>')
    # legend
    column_width = layout.width // layout.legend_columns
    for i, item in enumerate(chart.legend):
        lx = 12 + (i % layout.legend_columns) * column_width
        ly = legend_y + (i // layout.legend_columns) * 18
        if item.line:
            out.append(f'<line class="chart__line chart__line--{esc(item.kind)}" x1="{lx}" y1="{ly - 4}" x2="{lx + 18}" y2="{ly - 4}"/>')
        else:
            out.append(f'<rect class="chart__swatch chart__bar--{esc(item.kind)}" x="{lx}" y="{ly - 10}" width="18" height="10" rx="2"/>')
        out.append(f'<text class="chart__legend" x="{lx + 24}" y="{ly}">{esc(item.label)}</text>')
    out.append("</svg>")
    return "".join(out)
