"""Inside your kernel: the evidence a Result carries about HOW a kernel runs.

- sass.py       nvdisasm text and NVRTC's PTX tied to the learner's lines; instruction classes
- disasm.py     nvdisasm in the compile sandbox's walls (capped output, deadline, rlimits)
- occupancy.py  resident blocks and warps per SM, the limiting resource and the next step
- roofline.py   arithmetic intensity from spec.yaml, placement under the measured ceilings
- hints.py      rules as data (hints.yaml, ko/en, lesson anchors) that fire only on evidence
- counters.py   optional Nsight Compute counters, in the GPU sandbox
- schema.py     the JSON Schema of the ``insight`` section of a Result

The section is versioned (``INSIGHT_VERSION``) and optional: results from before it load as they
were. Standard library + pyyaml; no web imports.

    job = start_static(exercise, compiled, plan)   # overlaps with the GPU phases
    ...
    result.insight = finish(job.result(), exercise, result)
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
from typing import Any

from . import hints as _hints
from . import occupancy as _occupancy
from . import roofline as _roofline
from . import sass as _sass

INSIGHT_VERSION = "insight/1"
log = logging.getLogger(__name__)
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="insight")


def static_insight(*, exercise_id: str, cubin: bytes, ptx: str, arch: str, block: tuple[int, ...],
                   registers: int | None, shared_bytes: int, resources: dict[str, Any] | None = None,
                   source: str | None = None, sandboxed: bool = True,
                   disassembly: Any | None = None) -> dict[str, Any]:
    """Everything that needs only the compiled code: SASS, PTX, occupancy, static hints."""
    from . import disasm

    started = time.perf_counter()
    dis = disassembly if disassembly is not None else disasm.disassemble(cubin, sandboxed=sandboxed)
    sass_section: dict[str, Any] = {"available": bool(dis.ok), "reason": dis.reason, "tool": dis.tool,
                                    "ms": dis.ms}
    counts: dict[str, int] = {}
    load_widths: dict[str, int] = {}
    if dis.ok:
        parsed = _sass.parse_sass(dis.text)
        ins = parsed.instructions
        counts = _sass.class_counts(ins)
        load_widths = _sass.widths(ins, "global_load")
        sass_section.update(
            instructions=[[i.offset, i.line, i.text, i.cls] for i in ins],
            truncated=parsed.truncated or dis.truncated, functions=parsed.functions, counts=counts,
            global_load_widths=load_widths, global_store_widths=_sass.widths(ins, "global_store"),
            by_line=_sass.by_line(ins))
    ptx_lines, ptx_truncated = _sass.parse_ptx(ptx or "")
    threads = 1
    for b in block:
        threads *= int(b)
    occ = None
    if registers is not None:
        o = _occupancy.occupancy(threads, int(registers), int(shared_bytes), arch)
        occ = o.as_dict() if o else None
    out: dict[str, Any] = {
        "version": INSIGHT_VERSION, "arch": arch,
        "sass": sass_section,
        "ptx": {"lines": [[n, t] for n, t in ptx_lines], "truncated": ptx_truncated},
        "occupancy": occ, "roofline": None, "hints": [], "counters": None,
        "ms": 0.0,
    }
    out["_facts"] = _hints.facts(exercise=exercise_id, counts=counts or None,
                                 global_load_widths=load_widths or None, resources=resources,
                                 occupancy=occ, source=source)
    out["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return out


def start_static(**kwargs: Any) -> concurrent.futures.Future[dict[str, Any]]:
    """static_insight in a background thread (the disassembler's ~0.3 s overlaps GPU work)."""
    return _POOL.submit(static_insight, **kwargs)


def finish(static: dict[str, Any] | None, exercise: Any, timings: list[dict[str, Any]], gpu_name: str | None,
           counters: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """Add what needs the run (roofline from timings, counters) and evaluate the hints."""
    if static is None:
        return None
    out = dict(static)
    facts = dict(out.pop("_facts", {}) or {})
    started = time.perf_counter()
    try:
        out["roofline"] = _roofline.place(exercise, timings, gpu_name)
    except (ValueError, KeyError, ZeroDivisionError):
        log.exception("roofline placement failed")
        out["roofline"] = None
    out["counters"] = counters
    facts.update(_hints.facts(exercise=exercise.id, roofline=out["roofline"],
                              counters=(counters or {}).get("metrics") if counters else None,
                              global_load_widths=(out.get("sass") or {}).get("global_load_widths") or None))
    out["hints"] = _hints.evaluate(facts)
    out["ms"] = round(float(out.get("ms") or 0) + (time.perf_counter() - started) * 1000, 1)
    return out


__all__ = ["INSIGHT_VERSION", "static_insight", "start_static", "finish"]
