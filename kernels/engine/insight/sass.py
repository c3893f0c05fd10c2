"""SASS (from ``nvdisasm -gi``) and PTX (from NVRTC, ``.loc`` directives) tied to the learner's
source lines, and the instruction classes the lessons teach.

Pure text processing, standard library only: the disassembler runs elsewhere (disasm.py, in the
compile sandbox); this module only reads its output, so it is tested on CPU with real output.

The learner's file is compiled as ``kernel.cu`` after a ``#line 1`` reset (headers.py), so line
numbers in the line tables ARE the learner's. Code from a header (cuda_fp16.hpp) inlined into the
kernel is attributed to the learner's line that called it; the engine's appended signature check
is not the learner's and has no line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..headers import SOURCE_NAME

# Caps: what a Result may carry (a long unrolled kernel has many thousand instructions).
MAX_INSTRUCTIONS = 2500
MAX_PTX_LINES = 3000
MAX_TEXT = 160  # characters of one instruction or PTX line

# The classes, in the order the panel lists them. Each maps to the lesson that explains it.
CLASSES = ("global_load", "global_store", "shared_load", "shared_store", "async_copy", "barrier",
           "ffma", "tensor", "local_load", "local_store", "compare", "branch")

_TENSOR = ("HMMA", "HGMMA", "WGMMA", "IMMA", "IGMMA", "DMMA", "BMMA", "QGMMA", "UTCMMA")

# nvdisasm: "        /*0260*/                   LDG.E R11, desc[UR6][R8.64] ;"
_INSN = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s+(.*?)\s*;?\s*(?:/\*.*\*/)?\s*$")
# "//## File "/tmp/kernel.cu", line 2 inlined at "/tmp/kernel.cu", line 14"
_LINEINFO = re.compile(r'^\s*//## File "([^"]*)", line (\d+)((?: inlined at "[^"]*", line \d+)*)')
_INLINED = re.compile(r' inlined at "([^"]*)", line (\d+)')
_GUARD = re.compile(r"^@(!?)(U?P[0-6T])\s+")
_FUNC = re.compile(r"^\s*\.text\.([A-Za-z_$][\w$]*):\s*$")


@dataclass
class Instruction:
    offset: int
    line: int | None  # learner's source line, None for code that is not the learner's
    text: str
    opcode: str  # "LDG.E.128" (modifiers kept), without the guard predicate
    cls: str | None  # one of CLASSES, or None
    width: int | None = None  # bits per thread for global/shared/local loads and stores
    predicated: bool = False  # guarded by a predicate (@P0 / @!P1), not the always-true PT


@dataclass
class Sass:
    instructions: list[Instruction] = field(default_factory=list)
    truncated: bool = False
    functions: list[str] = field(default_factory=list)


def _learner_line(path: str, line: int, inlined: str) -> int | None:
    """The learner's line for one line-table entry: the innermost location in kernel.cu."""
    chain: list[tuple[str, int]] = [(path, line)] + [(p, int(n)) for p, n in _INLINED.findall(inlined or "")]
    for p, n in chain:
        if p.rsplit("/", 1)[-1] == SOURCE_NAME and n > 0:
            return n
    return None


def _width(op: str) -> int:
    mods = op.split(".")[1:]
    for m in mods:
        if m in ("128", "64"):
            return int(m)
        if m in ("U8", "S8"):
            return 8
        if m in ("U16", "S16"):
            return 16
    return 32


def classify(opcode: str) -> tuple[str | None, int | None]:
    """(class, width in bits) of one SASS opcode with modifiers, e.g. "LDG.E.128.CONSTANT"."""
    base = opcode.split(".", 1)[0]
    if base == "LDG":
        return "global_load", _width(opcode)
    if base in ("STG", "RED", "ATOMG"):
        return "global_store", _width(opcode) if base == "STG" else None
    if base in ("LDS", "LDSM"):
        return "shared_load", _width(opcode) if base == "LDS" else None
    if base in ("STS", "STSM", "ATOMS"):
        return "shared_store", _width(opcode) if base == "STS" else None
    if base in ("LDGSTS", "UBLKCP", "UTMALDG", "UTMAPF"):
        return "async_copy", None
    if base == "BAR":
        return "barrier", None
    if base in ("FFMA", "FFMA2"):
        return "ffma", None
    if base in _TENSOR:
        return "tensor", None
    if base == "LDL":
        return "local_load", _width(opcode)
    if base == "STL":
        return "local_store", _width(opcode)
    if base in ("ISETP", "ISETP64"):
        return "compare", None
    if base in ("BRA", "EXIT", "BRX", "JMP"):
        return "branch", None
    return None, None


def parse_sass(text: str, max_instructions: int = MAX_INSTRUCTIONS) -> Sass:
    """Instructions of every function in nvdisasm's output, each with its learner line."""
    out = Sass()
    line: int | None = None
    for raw in (text or "").splitlines():
        m = _FUNC.match(raw)
        if m:
            out.functions.append(m.group(1))
            line = None
            continue
        m = _LINEINFO.match(raw)
        if m:
            line = _learner_line(m.group(1), int(m.group(2)), m.group(3))
            continue
        m = _INSN.match(raw)
        if not m:
            continue
        if len(out.instructions) >= max_instructions:
            out.truncated = True
            break
        body = " ".join(m.group(2).split())
        guard = _GUARD.match(body)
        rest = body[guard.end():] if guard else body
        opcode = rest.split(" ", 1)[0]
        cls, width = classify(opcode)
        predicated = guard is not None and guard.group(2) not in ("PT", "UPT")
        out.instructions.append(Instruction(int(m.group(1), 16), line, body[:MAX_TEXT], opcode, cls,
                                            width, predicated))
    return out


def class_counts(instructions: list[Instruction]) -> dict[str, int]:
    """How many instructions of each class, and how many memory accesses sit under a guard
    predicate (the bounds checks ``if (row < M)`` compile to)."""
    counts = {c: 0 for c in CLASSES}
    for ins in instructions:
        if ins.cls:
            counts[ins.cls] += 1
    counts["predicated_memory"] = sum(1 for i in instructions if i.predicated and i.cls in (
        "global_load", "global_store", "shared_load", "shared_store"))
    return counts


def widths(instructions: Iterable[Instruction], cls: str) -> dict[str, int]:
    """How many instructions of ``cls`` move each width: {"32": 6, "128": 2}."""
    out: dict[str, int] = {}
    for ins in instructions:
        if ins.cls == cls and ins.width:
            out[str(ins.width)] = out.get(str(ins.width), 0) + 1
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


def by_line(instructions: Iterable[Instruction]) -> dict[str, dict[str, int]]:
    """Per learner line: total instructions and the count of each class present."""
    out: dict[str, dict[str, int]] = {}
    for ins in instructions:
        if ins.line is None:
            continue
        row = out.setdefault(str(ins.line), {"total": 0})
        row["total"] += 1
        if ins.cls:
            row[ins.cls] = row.get(ins.cls, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


# ---- PTX ---------------------------------------------------------------------------------

_PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(.*)$")
_PTX_INLINED = re.compile(r"inlined_at\s+(\d+)\s+(\d+)\s+\d+")


def parse_ptx(text: str, max_lines: int = MAX_PTX_LINES) -> tuple[list[tuple[int | None, str]], bool]:
    """PTX lines (without ``.loc`` directives and debug sections) each with its learner line."""
    lines = (text or "").splitlines()
    files: dict[str, str] = {}
    for raw in lines:
        m = _PTX_FILE.match(raw)
        if m:
            files[m.group(1)] = m.group(2)

    def learner(file_id: str, n: int, rest: str) -> int | None:
        chain: list[tuple[str, int]] = [(file_id, n)] + [(f, int(k)) for f, k in _PTX_INLINED.findall(rest)]
        for f, k in chain:
            if files.get(f, "").rsplit("/", 1)[-1] == SOURCE_NAME and k > 0:
                return k
        return None

    out: list[tuple[int | None, str]] = []
    current: int | None = None
    truncated = False
    for raw in lines:
        stripped = raw.strip()
        if stripped.startswith(".section") or _PTX_FILE.match(raw):
            break  # debug sections follow the code: not for learners
        m = _PTX_LOC.match(raw)
        if m:
            current = learner(m.group(1), int(m.group(2)), m.group(3))
            continue
        if not stripped or stripped.startswith("//"):
            continue
        if stripped.startswith(("$L__", "}", "{", ".reg", ".param", ".visible", ".entry", ".version",
                                ".target", ".address_size", ".shared", ".local", ".func", ")")):
            out_line = None  # declarations and labels are not any one source line's
        else:
            out_line = current
        if len(out) >= max_lines:
            truncated = True
            break
        out.append((out_line, raw.replace("\t", " ").strip()[:MAX_TEXT]))
    return out, truncated


# ---- diff of two submissions -------------------------------------------------------------

def diff_counts(old: dict[str, int], new: dict[str, int]) -> list[dict[str, Any]]:
    """Per class: old, new and the change, for every class either side has."""
    keys = [c for c in (*CLASSES, "predicated_memory") if old.get(c) or new.get(c)]
    return [{"cls": c, "old": int(old.get(c, 0)), "new": int(new.get(c, 0)),
             "delta": int(new.get(c, 0)) - int(old.get(c, 0))} for c in keys]


_REG = re.compile(r"\b(?:U?R\d+|U?P\d)\b")
_OFFSET_TARGET = re.compile(r"`\(\.L_x_\d+\)")


def normalised(text: str) -> str:
    """An instruction with register numbers and branch labels blurred, so a diff shows changed
    instructions rather than a renumbering."""
    return _OFFSET_TARGET.sub("`(L)", _REG.sub("R", text))
