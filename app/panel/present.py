"""A submission (state + the engine's Result JSON) turned into what the panel shows, in one
language: sentences from message codes, compile errors with the learner's line numbers, tables
and the geometry of the speedup bars. Pure functions: no database, no request."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from app.core import vocabulary as vocab
from app.i18n import gettext_for
from app.panel import texts

# NVRTC writes "kernel.cu(12): error: ..." with the learner's own line numbers (the engine's
# prelude is accounted for before the log reaches us).
LOG_LINE = re.compile(r"^[^\s:()]+\((\d+)\): (error|warning|remark)(?: #\S+)?: (.*)$")
KERNEL_ORDER = ("learner", "naive", "tiled", "baseline")
INFO_FLAGS = {"CACHED_COMPILE"}  # worth a quiet note, not a warning
STATE_HELP = {"queued", "awaiting_gpu"}  # states whose explanation the panel shows under the badge


def fmt_number(value: Any) -> str:
    """Short, exact-enough numbers for sentences: ints as is, floats to 6 significant digits."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        return f"{value:.6g}"
    return str(value)


def fmt_size(size: Any) -> str:
    if isinstance(size, dict):
        return " ".join(f"{k}={v}" for k, v in size.items())
    return str(size)


def fmt_param(key: str, value: Any) -> str:
    if key == "size":
        return fmt_size(value)
    if key == "index" and isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, list):
        return ", ".join(fmt_number(v) for v in value)
    if isinstance(value, dict):
        return fmt_size(value)
    if value is None:
        return "?"
    return fmt_number(value)


def message_text(code: str, params: dict[str, Any] | None, lang: str) -> str:
    """The sentence for one engine message; an unknown code shows as itself (never a crash)."""
    msgid = texts.CODES.get(code)
    if msgid is None:
        return code
    text = gettext_for(lang)(msgid)
    values = {k: fmt_param(k, v) for k, v in (params or {}).items()}
    kernel = (params or {}).get("kernel")
    if isinstance(kernel, str):  # "learner" -> "Your kernel", translated
        values["kernel"] = vocab.label(vocab.KERNEL, kernel, lang)
    try:
        return text % values
    except (KeyError, TypeError, ValueError):
        # a param missing from this message: show what we can rather than nothing
        return re.sub(r"%\((\w+)\)s", lambda m: values.get(m.group(1), "?"), text)




@dataclass
class CompileError:
    line: int | None
    severity: str
    text: str
    context: str = ""  # the source line and caret NVRTC prints below

    @property
    def look_before(self) -> bool:
        """NVRTC reports a missing ';' where the next statement starts: often the line after the
        one that lacks it, so the panel says to look at the line before too."""
        return bool(self.line and self.line > 1 and 'expected a ";"' in self.text)


def parse_compile_log(log: str) -> list[CompileError]:
    errors: list[CompileError] = []
    for raw in (log or "").splitlines():
        m = LOG_LINE.match(raw.strip())
        if m:
            errors.append(CompileError(int(m.group(1)), m.group(2), m.group(3)))
        elif errors and raw.strip():
            errors[-1].context = (errors[-1].context + "\n" + raw).strip("\n")
    return errors


@dataclass
class Bar:
    """One speedup bar in SVG user units: x positions on a 0..width axis."""
    against: str
    label: str
    size: str
    value: float
    ci_low: float
    ci_high: float
    x_value: float
    x_low: float
    x_high: float
    beats: bool  # the whole interval is above 1x


@dataclass
class SpeedupChart:
    width: float
    one_x: float  # where 1x sits
    max_value: float
    bars: list[Bar] = field(default_factory=list)
    ticks: list[tuple[float, str]] = field(default_factory=list)


def speedup_chart(speedups: list[dict[str, Any]], lang: str, width: float = 300.0) -> SpeedupChart | None:
    """Bars for the largest timing size only (the one tiers are judged on)."""
    if not speedups:
        return None
    sizes = [s.get("size") or {} for s in speedups]
    largest = max(sizes, key=lambda s: math.prod(v for v in s.values() if isinstance(v, (int, float))) if s else 0)
    chosen = [s for s in speedups if (s.get("size") or {}) == largest]
    chosen.sort(key=lambda s: KERNEL_ORDER.index(s["against"]) if s.get("against") in KERNEL_ORDER else 9)
    top = max([1.0] + [float(s.get("ci_high") or s.get("value") or 0) for s in chosen])
    top = _nice_ceiling(top * 1.1)
    scale = width / top
    chart = SpeedupChart(width, scale * 1.0, top)
    for s in chosen:
        value, low, high = (float(s.get(k) or 0) for k in ("value", "ci_low", "ci_high"))
        chart.bars.append(Bar(s["against"], vocab.label(vocab.KERNEL, s["against"], lang), fmt_size(s.get("size")),
                              value, low, high, value * scale, low * scale, high * scale, low > 1.0))
    step = _nice_ceiling(top / 4)
    tick = 0.0
    while tick <= top + 1e-9:
        chart.ticks.append((tick * scale, f"{tick:g}×"))
        tick += step
    return chart


def _nice_ceiling(x: float) -> float:
    """The next of 1, 2, 2.5, 5 x 10^k at or above x (readable axis ends and steps)."""
    if x <= 0:
        return 1.0
    exp = math.floor(math.log10(x))
    for m in (1, 2, 2.5, 5, 10):
        if m * 10 ** exp >= x - 1e-12:
            return float(m * 10 ** exp)
    return float(10 ** (exp + 1))


def _estimate_text(seconds: int | None, lang: str) -> str:
    """"about 3 min" from the API's estimate_s; empty without one."""
    if not seconds:
        return ""
    _ = gettext_for(lang)
    if seconds < 90:
        return _("about %(n)s s") % {"n": max(5, round(seconds / 5) * 5)}
    return _("about %(n)s min") % {"n": round(seconds / 60)}


def present(view: dict[str, Any], lang: str) -> dict[str, Any]:
    """Everything the result template needs, from a submission view (app.submissions.views)."""
    _ = gettext_for(lang)
    result = view.get("result") or {}
    state = view.get("state")
    out: dict[str, Any] = {
        "id": view.get("id"),
        "state": state,
        "state_label": vocab.label(vocab.STATE, state, lang),
        "state_text": view.get("state_text", ""),
        "state_help": vocab.explain(vocab.STATE, state, lang) if state in STATE_HELP else "",
        "position": view.get("position"),
        "pending": state not in ("done", "awaiting_gpu", "cancelled"),
        "estimate": _estimate_text(view.get("estimate_s"), lang),
        "created_at": view.get("created_at"),
        "launch": view.get("launch") or result.get("launch"),
    }
    verdict = result.get("verdict") if state == "done" else None
    out["verdict"] = verdict
    out["verdict_label"] = vocab.label(vocab.VERDICT, verdict, lang)
    message = result.get("message") or {}
    out["message"] = message_text(message["code"], message.get("params"), lang) if message.get("code") else ""
    out["message_code"] = message.get("code")
    out["compile_errors"] = parse_compile_log(result.get("compile_log", ""))
    out["compile_log"] = result.get("compile_log", "")
    out["correctness"] = [{
        "size": fmt_size(c.get("size")), "ok": c.get("ok"),
        "detail": _correctness_detail(c, lang),
    } for c in result.get("correctness") or []]
    out["timings"] = _timings(result.get("timings") or [], lang)
    out["chart"] = speedup_chart(result.get("speedups") or [], lang)
    out["speedups"] = result.get("speedups") or []
    out["resources"] = result.get("resources")
    out["tiers"] = [{**t, "against_label": vocab.label(vocab.KERNEL, t.get("against"), lang)} for t in result.get("tiers") or []]
    out["xp"] = (result.get("xp") or {}).get("total", 0)
    out["gpu"] = (result.get("gpu") or {}).get("name")
    flags = result.get("flags") or []
    out["flags"] = [message_text(f.get("code", ""), f.get("params"), lang) for f in flags
                    if f.get("code") not in INFO_FLAGS]
    out["notes"] = [message_text(f.get("code", ""), f.get("params"), lang) for f in flags if f.get("code") in INFO_FLAGS]
    out["has_result"] = bool(result)
    return out


def _correctness_detail(case: dict[str, Any], lang: str) -> str:
    if case.get("message"):
        return message_text(case["message"].get("code", ""), case["message"].get("params"), lang)
    mismatch = case.get("mismatch")
    if mismatch:
        return message_text("WRONG_ANSWER", {"size": case.get("size"), "index": mismatch.get("index"),
                                             "got": mismatch.get("got"), "expected": mismatch.get("expected")}, lang)
    return ""


def _timings(rows: list[dict[str, Any]], lang: str) -> list[dict[str, Any]]:
    """Grouped by size (in the engine's order), kernels in a fixed order within a size."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for t in rows:
        groups.setdefault(fmt_size(t.get("size")), []).append(t)
    out = []
    for size, items in groups.items():
        items.sort(key=lambda t: KERNEL_ORDER.index(t["kernel"]) if t.get("kernel") in KERNEL_ORDER else 9)
        out.append({"size": size, "rows": [{
            "kernel": t.get("kernel"), "label": vocab.label(vocab.KERNEL, t.get("kernel"), lang),
            "median_ms": t.get("median_ms"), "spread_ms": t.get("spread_ms"),
            "work_rate": t.get("work_rate"), "unit": t.get("unit") or "", "samples": t.get("samples", 0),
        } for t in items]})
    return out
