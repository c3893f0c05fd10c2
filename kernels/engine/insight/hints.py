"""Hints tied to lessons: a rule table (hints.yaml, data) evaluated on measured facts.

A hint in the Result is ``{"id", "params", "lesson"}``: no prose (the web app takes the sentence
in the reader's language from the same table, ``text_for``). A rule whose facts are missing is
silent. Standard library + pyyaml.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

TABLE = Path(__file__).with_name("hints.yaml")
# conditions compare a fact (any JSON value) with the rule's value (any YAML value)
OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    "in": lambda a, b: a in b,
}


@lru_cache(maxsize=1)
def rules() -> tuple[dict[str, Any], ...]:
    data = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError("hints.yaml: a list of rules expected")
    seen = set()
    for i, r in enumerate(data):
        where = f"hints.yaml rule {i} ({r.get('id') if isinstance(r, dict) else '?'})"
        if not isinstance(r, dict) or not isinstance(r.get("id"), str) or r["id"] in seen:
            raise ValueError(f"{where}: needs a unique id")
        seen.add(r["id"])
        when = r.get("when")
        if not isinstance(when, list) or not when:
            raise ValueError(f"{where}: needs conditions")
        for c in when:
            if not isinstance(c, dict) or c.get("op") not in OPS or not isinstance(c.get("fact"), str):
                raise ValueError(f"{where}: bad condition {c!r}")
        lesson = r.get("lesson") or {}
        if not isinstance(lesson.get("folder"), str) or set(lesson.get("heading") or {}) != {"en", "ko"}:
            raise ValueError(f"{where}: lesson needs a folder and a heading in en and ko")
        if set(r.get("text") or {}) != {"en", "ko"}:
            raise ValueError(f"{where}: text in en and ko")
    return tuple(data)


def rule(hint_id: str) -> dict[str, Any] | None:
    return next((r for r in rules() if r["id"] == hint_id), None)


# ---- facts -------------------------------------------------------------------------------

def facts(*, exercise: str, counts: Mapping[str, int] | None = None,
          global_load_widths: Mapping[str, int] | None = None, resources: Mapping[str, Any] | None = None,
          occupancy: Mapping[str, Any] | None = None, roofline: Mapping[str, Any] | None = None,
          counters: Mapping[str, Any] | None = None, source: str | None = None) -> dict[str, Any]:
    """The flat fact table the rules read. Only what was measured is present."""
    f: dict[str, Any] = {"exercise": exercise}
    if counts:
        for k, v in counts.items():
            f["sass." + k] = int(v)
        f["sass.local_load_store"] = int(counts.get("local_load", 0)) + int(counts.get("local_store", 0))
    if global_load_widths:
        f["sass.global_load_max_width"] = max(int(w) for w in global_load_widths)
    if resources:
        f["spill_bytes"] = int(resources.get("spill_store_bytes") or 0) + int(resources.get("spill_load_bytes") or 0)
    if occupancy:
        f["occupancy"] = float(occupancy["occupancy"])
        f["occupancy_percent"] = round(100 * float(occupancy["occupancy"]))
        f["occupancy.registers_limit"] = int("registers" in occupancy.get("limited_by", []))
    if roofline:
        if roofline.get("bound"):
            f["roofline.bound"] = roofline["bound"]
        if isinstance(roofline.get("fraction"), (int, float)):
            f["roofline.fraction"] = float(roofline["fraction"])
            f["roofline_percent"] = round(100 * float(roofline["fraction"]))
    if counters:
        for k in ("sectors_per_request", "bank_conflicts_per_request", "achieved_occupancy"):
            if isinstance(counters.get(k), (int, float)):
                f["counters." + k] = round(float(counters[k]), 2)
        spr = counters.get("sectors_per_request")
        if isinstance(spr, (int, float)) and global_load_widths:
            # a warp's fully coalesced request of w-bit loads touches 32 * w / 8 / 32 = w / 8 sectors
            ideal = max(int(w) for w in global_load_widths) / 8
            f["counters.ideal_sectors"] = int(ideal)
            f["counters.sector_excess"] = round(float(spr) / ideal, 2)
    if source is not None:
        f["source.sync_in_divergent_branch"] = sync_in_divergent_branch(source) or 0
    return f


def evaluate(fact_table: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every rule whose conditions all hold: [{"id", "params", "lesson"}]."""
    out = []
    for r in rules():
        ok = True
        for c in r["when"]:
            if c["fact"] not in fact_table:
                ok = False
                break
            try:
                if not OPS[c["op"]](fact_table[c["fact"]], c["value"]):
                    ok = False
                    break
            except TypeError:
                ok = False
                break
        if ok:
            names = set(re.findall(r"%\(([\w.]+)\)s", r["text"]["en"] + r["text"]["ko"]))
            params = {n: fact_table[n] for n in sorted(names) if n in fact_table}
            out.append({"id": r["id"], "params": params,
                        "lesson": {"folder": r["lesson"]["folder"], "heading": dict(r["lesson"]["heading"])}})
    return out


def text_for(hint: Mapping[str, Any], lang: str) -> str:
    """The hint's sentence in ``lang`` ("en" or "ko"), parameters filled in."""
    r = rule(str(hint.get("id")))
    if r is None:
        return str(hint.get("id"))
    template = r["text"].get(lang) or r["text"]["en"]
    params = hint.get("params") or {}
    return re.sub(r"%\(([\w.]+)\)s", lambda m: _fmt(params.get(m.group(1), "?")), template).replace("%%", "%")


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


# ---- static check: __syncthreads() under a threadIdx-dependent branch ----------------------

_STRIP = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
_DIVERGENT = re.compile(r"\b(threadIdx|laneid|lane_id|__lane_id)\b")
_TOKEN = re.compile(r"\b(if|else|for|while|switch|__syncthreads)\b|[(){};]")


def sync_in_divergent_branch(source: str) -> int | None:
    """The first line where ``__syncthreads()`` runs only under a condition on threadIdx.

    A conservative scan of the comment- and string-free source: the body of an if/else/for/while/
    switch whose condition names threadIdx (directly) is divergent; a barrier inside it is
    reported. Conditions through a variable (``int t = threadIdx.x; if (t < 5)``) are not
    followed: better silent than wrong.
    """
    text = _STRIP.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source or "")
    stack: list[bool] = []  # per open brace: is this block divergent?
    pending: bool | None = None  # a control statement's condition seen, body not yet opened
    last_if_divergent = False
    single: list[tuple[int, bool]] = []  # bodies without braces (depth, divergent), end at ';'
    pos = 0
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if m.start() < pos:
            continue
        if tok in ("if", "for", "while", "switch"):
            cond, end = _paren(text, m.end())
            if cond is None:
                continue
            pending = bool(_DIVERGENT.search(cond))
            if tok == "if":
                last_if_divergent = pending
            pos = end
            rest = text[end:].lstrip()
            if not rest.startswith("{"):
                single.append((len(stack), pending))
                pending = None
        elif tok == "else":
            rest = text[m.end():].lstrip()
            if rest.startswith("if"):
                continue
            if rest.startswith("{"):
                pending = last_if_divergent
            else:
                single.append((len(stack), last_if_divergent))
        elif tok == "{":
            inherited = any(d for depth, d in single if depth == len(stack))
            stack.append(bool(pending) or inherited)
            pending = None
        elif tok == "}":
            if stack:
                stack.pop()
            single = [(depth, d) for depth, d in single if depth < len(stack)]
        elif tok == ";":
            single = [(depth, d) for depth, d in single if depth < len(stack)]
        elif tok == "__syncthreads":
            if any(stack) or any(d for _, d in single):
                return text.count("\n", 0, m.start()) + 1
    return None


def _paren(text: str, start: int) -> tuple[str | None, int]:
    i = text.find("(", start)
    if i < 0 or text[start:i].strip():
        return None, start
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return text[i + 1:j], j + 1
    return None, start


def hint_ids(hints: Iterable[Mapping[str, Any]]) -> list[str]:
    return [h["id"] for h in hints]
