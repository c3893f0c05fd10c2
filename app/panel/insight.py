"""The "Inside your kernel" section of a result, in one language: assembly beside the
source (each instruction knows its line, for click-to-highlight both ways), instruction counts,
the roofline as server-rendered SVG, occupancy in words, counters with one sentence each, and
hints with links to the lesson section that explains them. Pure functions of the Result's
``insight`` section and the submission's source."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape as _xml_escape

from app.i18n import gettext_for
from app.panel.texts import _  # marks msgids for extraction; translated per request below
from app.rendering.markdown import _slugify

CLASS_LABELS = {
    "global_load": _("global loads (LDG)"),
    "global_store": _("global stores (STG)"),
    "shared_load": _("shared-memory loads (LDS)"),
    "shared_store": _("shared-memory stores (STS)"),
    "async_copy": _("asynchronous copies (LDGSTS)"),
    "barrier": _("barriers (BAR)"),
    "ffma": _("fused multiply-adds (FFMA)"),
    "tensor": _("Tensor Core instructions (HMMA/HGMMA)"),
    "local_load": _("local-memory loads (LDL)"),
    "local_store": _("local-memory stores (STL)"),
    "compare": _("compares for bounds checks (ISETP)"),
    "branch": _("branches and exits"),
    "predicated_memory": _("memory accesses under a predicate"),
}
LIMITS = {
    "registers": _("registers"),
    "shared": _("shared memory"),
    "warps": _("warp slots"),
    "blocks": _("the block limit"),
}
REASONS = {
    "NVDISASM_MISSING": _("The disassembler (nvdisasm) is not installed on this server, so there is no SASS."),
    "NVDISASM_FAILED": _("The disassembler could not read this kernel's machine code."),
    "NVDISASM_TIMEOUT": _("The disassembler took too long and was stopped."),
    "NO_SANDBOX": _("The sandbox is not available here, so the tool was not run."),
    "NCU_MISSING":
        _("Nsight Compute (ncu) is not available on this server, so there are no hardware counters. Everything else here still applies."),
    "NCU_FAILED": _("Nsight Compute could not profile this kernel."),
    "NCU_TIMEOUT": _("Profiling took too long and was stopped."),
    "NCU_NO_PERMISSION": _("This server does not allow reading GPU performance counters."),
    "NCU_NOT_RUN": _("Counters are read only for a kernel that passed, on a GPU."),
}
COUNTER_TEXTS = {
    "sectors_per_request": (_("Global load sectors per request"), _(
        "%(value)s 32-byte sectors per warp-wide load: 4 is ideal for 32-bit loads (16 for float4), "
        "32 means every thread reads its own sector."),
        ("01-matrix-layout-coalescing", {"en": "What a warp asks of memory", "ko": "Warp가 메모리에 요청하는 것"})),
    "bank_conflicts_per_request": (_("Shared-memory bank conflicts per request"), _(
        "%(value)s extra passes per shared-memory instruction: 0 means no two threads of a warp hit the same bank."),
        ("03-transpose-bank-conflicts", {"en": "Shared memory banks", "ko": "Shared memory bank"})),
    "achieved_occupancy": (_("Achieved occupancy"), _(
        "%(value)s of the SM's warp slots were busy on average while the kernel ran."),
        ("05-register-tiling-tensor-cores",
         {"en": "2D thread tiling: an outer product in registers", "ko": "2D thread tiling: register 안의 outer product"})),
    "dram_bytes_read": (_("DRAM bytes read"), _("%(value)s bytes came from device memory (after the caches)."),
                        ("04-naive-vs-tiled-gemm",
                         {"en": "Counting loads: arithmetic intensity", "ko": "Load 세기: arithmetic intensity"})),
    "dram_bytes_write": (_("DRAM bytes written"), _("%(value)s bytes went to device memory."),
                         ("04-naive-vs-tiled-gemm",
                          {"en": "Counting loads: arithmetic intensity", "ko": "Load 세기: arithmetic intensity"})),
    "sm_throughput_pct": (_("SM throughput"), _(
        "The busiest part of the SMs (instruction issue or one execution pipe) ran at %(value)s%% of its peak."),
                          ("05-register-tiling-tensor-cores",
                           {"en": "Beyond the shared-memory tile", "ko": "Shared memory tile 너머로"})),
}
LESSON_SLUGS = {  # lesson folder -> URL slug (lesson.yaml's slug)
    "01-matrix-layout-coalescing": "matrix-layout-coalescing",
    "02-parallel-reduction": "parallel-reduction",
    "03-transpose-bank-conflicts": "transpose-bank-conflicts",
    "04-naive-vs-tiled-gemm": "naive-vs-tiled-gemm",
    "05-register-tiling-tensor-cores": "register-tiling-tensor-cores",
    "06-tensor-cores-hopper": "tensor-cores-hopper",
    "07-reading-what-the-gpu-ran": "reading-what-the-gpu-ran",
}
SHOWN_CLASSES = ("global_load", "global_store", "shared_load", "shared_store", "async_copy", "barrier", "ffma",
                 "tensor", "local_load", "local_store", "compare", "predicated_memory")


def lesson_link(folder: str, heading: dict[str, Any], lang: str) -> dict[str, Any] | None:
    slug = LESSON_SLUGS.get(folder) or folder.split("-", 1)[-1]
    title = (heading or {}).get(lang) or (heading or {}).get("en")
    if not title:
        return None
    # sections carry the English text's ids in both languages, so one link reaches either page
    anchor = _slugify((heading or {}).get("en") or title)
    return {"href": f"/{lang}/lessons/{slug}#{anchor}", "title": title}


def _num(v: float | None, digits: int = 3) -> str:
    """1,950 / 341 / 2.5 / 0.0312: grouped thousands, three significant figures below."""
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return "—"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def present_insight(insight: dict[str, Any] | None, source: str | None, lang: str, *, can_profile: bool = False) -> dict[str, Any] | None:
    if not insight or not isinstance(insight, dict):
        return None
    t = gettext_for(lang)
    out: dict[str, Any] = {"version": insight.get("version"), "can_profile": can_profile and not insight.get("counters")}
    sass = insight.get("sass") or {}
    out["sass_available"] = bool(sass.get("available"))
    out["sass_reason"] = t(REASONS[sass["reason"]]) if sass.get("reason") in REASONS else ""
    out["sass_tool"] = sass.get("tool") or ""
    out["sass_truncated"] = bool(sass.get("truncated"))
    out["instructions"] = [{"offset": f"{o:04x}", "line": n, "text": text, "cls": cls or ""}
                           for o, n, text, cls in (sass.get("instructions") or [])]
    counts = sass.get("counts") or {}
    out["counts"] = [{"cls": c, "label": t(CLASS_LABELS[c]), "n": counts.get(c, 0)}
                     for c in SHOWN_CLASSES if c in counts]
    out["load_widths"] = ", ".join(f"{w}-bit × {n}" for w, n in (sass.get("global_load_widths") or {}).items())
    by_line = sass.get("by_line") or {}
    lines = (source or "").splitlines()
    out["source"] = [{"n": i, "text": text, "count": (by_line.get(str(i)) or {}).get("total", 0),
                      "classes": " ".join(sorted(k for k in (by_line.get(str(i)) or {}) if k != "total"))}
                     for i, text in enumerate(lines, 1)]
    ptx = insight.get("ptx") or {}
    out["ptx"] = [{"line": n, "text": text} for n, text in (ptx.get("lines") or [])]
    out["ptx_truncated"] = bool(ptx.get("truncated"))
    out["occupancy"] = _occupancy(insight.get("occupancy"), t)
    roof = insight.get("roofline")
    out["roofline"] = _roofline(roof, lang, t) if roof else None
    out["counters"] = _counters(insight.get("counters"), lang, t)
    from kernels.engine.insight.hints import text_for

    out["hints"] = []
    for h in insight.get("hints") or []:
        if not isinstance(h, dict):
            continue
        lesson = h.get("lesson") or {}
        out["hints"].append({"id": h.get("id"), "text": text_for(h, lang),
                             "link": lesson_link(lesson.get("folder", ""), lesson.get("heading") or {}, lang)})
    return out


def _occupancy(o: dict[str, Any] | None, t: Callable[[str], str]) -> dict[str, Any] | None:
    if not o:
        return None
    limited = [t(LIMITS.get(k, k)) for k in o.get("limited_by") or []]
    text = t(
        _("%(blocks)s blocks of %(threads)s threads fit on one SM: %(warps)s of %(max)s warp slots (%(pct)s%%), limited by %(limit)s.")
    ) % {
        "blocks": o.get("blocks_per_sm"), "threads": o.get("threads_per_block"), "warps": o.get("warps_per_sm"),
        "max": o.get("max_warps_per_sm"), "pct": round(100 * float(o.get("occupancy") or 0)),
        "limit": ", ".join(limited) or "—"}
    step = o.get("next_step")
    step_text = ""
    if step:
        templates = {
            "registers": t(_("%(n)s fewer registers per thread → %(blocks)s blocks per SM.")),
            "shared": t(_("%(n)s fewer bytes of shared memory per block → %(blocks)s blocks per SM.")),
            "threads": t(_("%(n)s fewer threads per block → %(blocks)s blocks per SM and more warps in all.")),
        }
        if step.get("resource") in templates:
            step_text = templates[step["resource"]] % {"n": step.get("change"), "blocks": step.get("blocks_per_sm")}
    if o.get("blocks_per_sm") == 0:
        text = t(_("This block does not fit on one SM (limited by %(limit)s).")) % {"limit": ", ".join(limited) or "—"}
    return {"text": text, "step": step_text, "registers": o.get("registers"), "shared": o.get("shared_bytes"),
            "pct": round(100 * float(o.get("occupancy") or 0))}


# ---- roofline SVG ------------------------------------------------------------------------

W, H = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 14, 42
KERNEL_LABELS = {"learner": _("Your kernel"), "naive": _("Naive reference"), "tiled": _("Tiled reference")}


def esc(text: Any) -> str:
    return _xml_escape(str(text), {'"': "&quot;"})


SUMMARY_WITH_FRACTION = (
    _("Your kernel: %(rate)s GFLOP/s at %(ai)s FLOP/byte, %(pct)s%% of what this GPU allows at that intensity (%(bound)s-bound)."))
NO_CEILINGS = _("No ceilings have been measured on this GPU yet, so only the intensity is shown.")


def _roofline(r: dict[str, Any], lang: str, t: Callable[[str], str]) -> dict[str, Any]:
    ceil = r.get("ceilings")
    points = r.get("points") or []
    mine = next((p for p in points if p.get("kernel") == "learner"), None)
    out: dict[str, Any] = {"intensity": _num(r.get("intensity")), "size": " ".join(f"{k}={v}" for k, v in (r.get("size") or {}).items()),
                           "bound": r.get("bound"), "svg": "", "summary": "", "no_ceilings": ceil is None}
    if mine and r.get("fraction") is not None:
        if (r.get("flops") or 0) > 0:
            out["summary"] = t(SUMMARY_WITH_FRACTION) % {
                "rate": _num(mine["gflops"]), "ai": _num(r.get("intensity")), "pct": round(100 * r["fraction"]),
                "bound": t(_("memory")) if r.get("bound") == "memory" else t(_("compute"))}
        else:
            out["summary"] = t(_("Your kernel moves %(rate)s GB/s, %(pct)s%% of the measured DRAM bandwidth.")) % {
                "rate": _num(mine["gbs"]), "pct": round(100 * r["fraction"])}
    elif mine:
        out["summary"] = t(_("Your kernel: %(rate)s GFLOP/s at %(ai)s FLOP/byte.")) % {
            "rate": _num(mine["gflops"]), "ai": _num(r.get("intensity"))}
    if ceil and (r.get("flops") or 0) > 0 and (r.get("intensity") or 0) > 0:
        out["svg"] = roofline_svg(r, lang, t)
    elif ceil and mine:
        out["svg"] = bandwidth_svg(r, lang, t)
    out["ceilings_text"] = t(_("Ceilings measured on %(gpu)s: DRAM %(bw)s GB/s, FP32 %(fp32)s GFLOP/s, Tensor Cores %(tc)s GFLOP/s.")) % {
        "gpu": ceil.get("gpu") or "?", "bw": _num(ceil.get("dram_gbs")), "fp32": _num(ceil.get("fp32_gflops")),
        "tc": _num(ceil.get("tensor_gflops"))} if ceil else t(NO_CEILINGS)
    return out


def roofline_svg(r: dict[str, Any], lang: str, t: Callable[[str], str]) -> str:
    ceil = r["ceilings"]
    bw, fp32, tc = float(ceil["dram_gbs"]), float(ceil["fp32_gflops"]), ceil.get("tensor_gflops")
    top_rate = max([fp32, float(tc or 0)] + [p["gflops"] for p in r["points"]])
    x_lo, x_hi = 0.01, 10 ** math.ceil(math.log10(max(100.0, r["intensity"] * 10)))
    lowest = min([bw * x_lo] + [p["gflops"] for p in r["points"]])
    y_lo = 10 ** math.floor(math.log10(max(1.0, lowest)))
    y_hi = 10 ** math.ceil(math.log10(top_rate * 1.5))
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def X(v: float) -> float:
        return LEFT + pw * (math.log10(v) - math.log10(x_lo)) / (math.log10(x_hi) - math.log10(x_lo))

    def Y(v: float) -> float:
        v = min(max(v, y_lo), y_hi)
        return TOP + ph * (1 - (math.log10(v) - math.log10(y_lo)) / (math.log10(y_hi) - math.log10(y_lo)))

    title = t(_("Roofline of this GPU with your kernel"))
    desc_parts = [t(_("Memory roof %(bw)s GB/s, FP32 roof %(fp32)s GFLOP/s.")) % {"bw": _num(bw), "fp32": _num(fp32)}]
    for p in r["points"]:
        desc_parts.append(f"{t(KERNEL_LABELS.get(p['kernel'], p['kernel']))}: {_num(p['gflops'])} GFLOP/s")
    parts = [f'<svg class="roof" viewBox="0 0 {W} {H}" role="img" aria-labelledby="roof-t roof-d" xmlns="http://www.w3.org/2000/svg">',
             f'<title id="roof-t">{esc(title)}</title><desc id="roof-d">{esc("; ".join(desc_parts))}</desc>']
    for e in range(int(math.log10(x_lo)), int(math.log10(x_hi)) + 1):
        x = X(10 ** e)
        parts.append(f'<line class="roof__grid" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + ph}"/>')
        parts.append(f'<text class="roof__tick" x="{x:.1f}" y="{TOP + ph + 14}" text-anchor="middle">{esc(_pow(e))}</text>')
    for e in range(int(math.log10(y_lo)), int(math.log10(y_hi)) + 1):
        y = Y(10 ** e)
        parts.append(f'<line class="roof__grid" x1="{LEFT}" x2="{LEFT + pw}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(f'<text class="roof__tick" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{esc(_pow(e))}</text>')
    parts.append(f'<text class="roof__axis" x="{LEFT + pw / 2}" y="{H - 6}" text-anchor="middle">'
                 f'{esc(t(_("Arithmetic intensity (FLOP/byte)")))}</text>')
    parts.append(f'<text class="roof__axis" x="12" y="{TOP + ph / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 12 {TOP + ph / 2})">GFLOP/s</text>')
    ridge = fp32 / bw
    roof_title = t(_("Memory roof %(bw)s GB/s, FP32 roof %(fp32)s GFLOP/s.")) % {"bw": _num(bw), "fp32": _num(fp32)}
    parts.append(f'<polyline class="roof__roof" '
                 f'points="{X(x_lo):.1f},{Y(bw * x_lo):.1f} {X(ridge):.1f},{Y(fp32):.1f} {X(x_hi):.1f},{Y(fp32):.1f}">'
                 f'<title>{esc(roof_title)}</title></polyline>')
    parts.append(f'<text class="roof__label" x="{X(x_hi) - 4:.1f}" y="{Y(fp32) - 5:.1f}" text-anchor="end">FP32 {esc(_num(fp32))}</text>')
    if tc:
        tcv = float(tc)
        parts.append(f'<polyline class="roof__tensor" points="{X(tcv / bw):.1f},{Y(tcv):.1f} {X(x_hi):.1f},{Y(tcv):.1f}"/>')
        parts.append(f'<text class="roof__label" x="{X(x_hi) - 4:.1f}" y="{Y(tcv) - 5:.1f}" text-anchor="end">'
                     f'{esc(t(_("Tensor Cores")))} {esc(_num(tcv))}</text>')
    parts.append(f'<text class="roof__label" x="{X(x_lo) + 6:.1f}" y="{Y(bw * x_lo * 3) - 8:.1f}">DRAM {esc(_num(bw))} GB/s</text>')
    x = X(r["intensity"])
    parts.append(f'<line class="roof__ai" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + ph}"/>')
    label_y: dict[str, float] = {}
    last = -1e9
    for p in sorted(r["points"], key=lambda p: Y(p["gflops"])):  # top to bottom, 12 units apart
        last = max(Y(p["gflops"]) + 4, last + 12)
        label_y[p["kernel"]] = last
    for p in r["points"]:
        y = Y(p["gflops"])
        label = t(KERNEL_LABELS.get(p["kernel"], p["kernel"]))
        parts.append(f'<circle class="roof__pt roof__pt--{esc(p["kernel"])}" '
                     f'cx="{x:.1f}" cy="{y:.1f}" r="{6 if p["kernel"] == "learner" else 4.5}">'
                     f'<title>{esc(label)}: {esc(_num(p["gflops"]))} GFLOP/s</title></circle>')
        anchor, dx = ("end", -9) if x > LEFT + pw * 0.6 else ("start", 9)
        parts.append(f'<text class="roof__pl roof__pl--{esc(p["kernel"])}" '
                     f'x="{x + dx:.1f}" y="{label_y[p["kernel"]]:.1f}" text-anchor="{anchor}">'
                     f'{esc(label)} {esc(_num(p["gflops"]))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def bandwidth_svg(r: dict[str, Any], lang: str, t: Callable[[str], str]) -> str:
    """A problem with no arithmetic: bars of GB/s under the DRAM bandwidth."""
    bw = float(r["ceilings"]["dram_gbs"])
    rows = r["points"]
    h = 24 * len(rows) + 40
    pw = W - 170 - RIGHT
    title = t(_("Bandwidth of your kernel against the measured DRAM bandwidth"))
    desc = "; ".join(f"{t(KERNEL_LABELS.get(p['kernel'], p['kernel']))}: {_num(p['gbs'])} GB/s" for p in rows)
    parts = [f'<svg class="roof" viewBox="0 0 {W} {h}" role="img" aria-labelledby="roof-t roof-d" xmlns="http://www.w3.org/2000/svg">',
             f'<title id="roof-t">{esc(title)}</title><desc id="roof-d">{esc(desc)} (DRAM {esc(_num(bw))} GB/s)</desc>']
    top = max([bw] + [p["gbs"] for p in rows]) * 1.05
    for i, p in enumerate(rows):
        y = 8 + 24 * i
        label = t(KERNEL_LABELS.get(p["kernel"], p["kernel"]))
        parts.append(f'<text class="roof__label" x="160" y="{y + 13}" text-anchor="end">{esc(label)}</text>')
        parts.append(f'<rect class="roof__bar roof__pt--{esc(p["kernel"])}" '
                     f'x="170" y="{y}" width="{pw * p["gbs"] / top:.1f}" height="16" rx="3">'
                     f'<title>{esc(_num(p["gbs"]))} GB/s</title></rect>')
        parts.append(f'<text class="roof__tick" x="{170 + pw * p["gbs"] / top + 4:.1f}" y="{y + 13}">{esc(_num(p["gbs"]))}</text>')
    x = 170 + pw * bw / top
    parts.append(f'<line class="roof__roofline" x1="{x:.1f}" x2="{x:.1f}" y1="0" y2="{h - 24}"/>')
    parts.append(f'<text class="roof__label" x="{x:.1f}" y="{h - 8}" text-anchor="end">DRAM {esc(_num(bw))} GB/s</text>')
    parts.append("</svg>")
    return "".join(parts)


def _pow(e: int) -> str:
    return {-3: "0.001", -2: "0.01", -1: "0.1", 0: "1", 1: "10", 2: "100", 3: "1k", 4: "10k", 5: "100k", 6: "1M", 7: "10M"}.get(e, f"1e{e}")


def _counters(c: dict[str, Any] | None, lang: str, t: Callable[[str], str]) -> dict[str, Any]:
    if not c:
        return {"available": False, "text": "", "rows": [], "not_run": True}
    if not c.get("available"):
        return {"available": False, "text": t(REASONS.get(str(c.get("reason")), REASONS["NCU_FAILED"])), "rows": [], "not_run": False}
    rows = []
    for key, (label, sentence, (folder, heading)) in COUNTER_TEXTS.items():
        v = (c.get("metrics") or {}).get(key)
        if v is None:
            continue
        shown = f"{round(100 * v)}%" if key == "achieved_occupancy" else _num(v)
        rows.append({"key": key, "label": t(label), "value": shown,
                     "text": t(sentence) % {"value": shown}, "link": lesson_link(folder, heading, lang)})
    size = " ".join(f"{k}={v}" for k, v in (c.get("size") or {}).items())
    return {"available": True, "rows": rows, "size": size, "tool": c.get("tool") or "", "text": "", "not_run": False}


def sass_diff(old_result: str | None, new_result: str | None, old_name: str, new_name: str, lang: str) -> dict[str, Any] | None:
    """Counts per class and the instruction text diff of two submissions' SASS, when both have it."""
    import json

    from kernels.engine.insight import sass as sass_mod

    def load(raw: str | None) -> dict[str, Any] | None:
        try:
            s = ((json.loads(raw) if raw else {}).get("insight") or {}).get("sass") or {}
        except (ValueError, AttributeError):
            return None
        return s if s.get("available") else None

    a, b = load(old_result), load(new_result)
    if a is None or b is None:
        return None
    t = gettext_for(lang)
    rows = [{**r, "label": t(CLASS_LABELS.get(r["cls"], r["cls"]))}
            for r in sass_mod.diff_counts(a.get("counts") or {}, b.get("counts") or {})]
    from app.panel.history import diff_lines

    def listing(side: dict[str, Any]) -> str:
        return "\n".join(sass_mod.normalised(i[2]) for i in side.get("instructions") or [])

    kinds = diff_lines(listing(a), listing(b), old_name, new_name)[:4000]
    return {"rows": rows, "lines": kinds}
