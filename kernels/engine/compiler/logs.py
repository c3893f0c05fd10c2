"""Turning NVRTC's raw log into what a learner may see, and reading ptxas resource lines.

- Diagnostics are split into blocks (``file(line): error: ...`` plus the echoed source and
  caret lines). Blocks from the engine's own appended code (the signature check) or NVRTC's
  name map are removed: the engine explains those with a message code instead.
- The learner's file is compiled as ``kernel.cu`` after a ``#line 1`` reset, so its line
  numbers are already the learner's own. No arithmetic, no off-by-one.
- Server paths (header folders, the Python prefix, anything under /usr, /opt, /home, /root,
  /work, /tmp ...) are cut down to their last component, e.g. ``cuda_fp16.hpp(123)``.
- ptxas "info" lines go into Result.resources, not the log. The log is capped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..headers import CHECK_NAME, SOURCE_NAME

LOG_CAP_BYTES = 16 * 1024
TRUNCATED_MARK = "\n[...]\n"
NAME_MAP_FILE = "__nv_name_map"

_DIAG_RE = re.compile(
    r"^(?P<file>[^\n]*?)\((?P<line>\d+)\): (?P<kind>catastrophic error|error|warning|remark)(?P<rest>[^\n]*)$",
    re.M,
)
_SUMMARY_RE = re.compile(r"^\d+ (?:catastrophic )?errors? detected in the compilation of .*$\n?"
                         r"|^\d+ errors? and \d+ catastrophic errors? detected in .*$\n?"
                         r"|^Compilation terminated\.$\n?", re.M)
_PTXAS_INFO_RE = re.compile(r"^ptxas(?: info)?\s+[:.].*$\n?", re.M)
# Absolute paths under the usual roots of a server's file system.
_PATH_RE = re.compile(
    r"(?<![\w.\-])/(?:usr|opt|home|root|work|tmp|etc|proc|var|srv|mnt|run|sys|dev|lib|lib64|nix|sandbox|media|snap|data|app|workspace)"
    r"(?:/[^\s\"'():,<>]+)+"
)


@dataclass
class Diagnostic:
    file: str
    line: int
    kind: str  # error | catastrophic error | warning | remark
    text: str  # the whole block, header line first

    @property
    def is_error(self) -> bool:
        return "error" in self.kind


def split_diagnostics(log: str) -> tuple[str, list[Diagnostic]]:
    """(text before the first diagnostic, diagnostics)."""
    matches = list(_DIAG_RE.finditer(log))
    if not matches:
        return log, []
    head = log[: matches[0].start()]
    diags = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(log)
        diags.append(Diagnostic(file=m.group("file").strip(), line=int(m.group("line")),
                                kind=m.group("kind"), text=log[m.start():end]))
    return head, diags


def scrub_paths(text: str, known: Iterable[str] = ()) -> str:
    """Replace server paths by their last component (``.../include/cuda_fp16.hpp`` ->
    ``cuda_fp16.hpp``). ``known`` are extra prefixes (e.g. the include folder) to cut first."""
    for prefix in sorted({k.rstrip("/") for k in known if k and k != "/"}, key=len, reverse=True):
        text = re.sub(re.escape(prefix) + r"/?", "", text)
    return _PATH_RE.sub(lambda m: m.group(0).rstrip("/").rsplit("/", 1)[-1], text)


def cap(text: str, limit: int = LOG_CAP_BYTES) -> tuple[str, bool]:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    cut = data[: limit - len(TRUNCATED_MARK)].decode("utf-8", "ignore")
    nl = cut.rfind("\n")
    if nl > limit // 2:
        cut = cut[:nl]
    return cut + TRUNCATED_MARK, True


@dataclass
class LearnerLog:
    text: str
    truncated: bool
    learner_errors: list[Diagnostic]
    check_errors: list[Diagnostic]  # from our signature check / name map
    header_errors: list[Diagnostic]  # in an engine-included header (caused by learner code)


def learner_log(raw: str, known_paths: Iterable[str] = ()) -> LearnerLog:
    raw = raw.replace("\x00", "")
    raw = _PTXAS_INFO_RE.sub("", raw)
    raw = _SUMMARY_RE.sub("", raw)
    head, diags = split_diagnostics(raw)
    kept: list[str] = [head] if head.strip() else []
    learner_errors: list[Diagnostic] = []
    check_errors: list[Diagnostic] = []
    header_errors: list[Diagnostic] = []
    for d in diags:
        if d.file in (CHECK_NAME, NAME_MAP_FILE):
            if d.is_error:
                check_errors.append(d)
            continue
        if d.is_error:
            (learner_errors if d.file == SOURCE_NAME else header_errors).append(d)
        kept.append(d.text)
    text = "".join(kept).strip()
    text = scrub_paths(text, known_paths)
    text = re.sub(r"\n{3,}", "\n\n", text)
    text, truncated = cap(text)
    return LearnerLog(text=text, truncated=truncated, learner_errors=learner_errors,
                      check_errors=check_errors, header_errors=header_errors)


# ---- ptxas -v resource lines --------------------------------------------------------------

_ENTRY_RE = re.compile(r"Compiling entry function '([^']+)'")
_PROPS_RE = re.compile(r"Function properties for (\S+)")
_FRAME_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED_RE = re.compile(r"Used (\d+) registers")
_SMEM_RE = re.compile(r"(\d+) bytes smem")
_CMEM_RE = re.compile(r"(\d+) bytes cmem\[0\]")


def parse_ptxas_resources(log: str, entry: str) -> dict[str, int] | None:
    """Resources of one entry function from ``-Xptxas=-v`` output; None if not found."""
    current: str | None = None
    found: dict[str, int] = {}
    seen = False
    for line in log.splitlines():
        m = _ENTRY_RE.search(line)
        if m:
            current = m.group(1)
            continue
        m = _PROPS_RE.search(line)
        if m:
            current = m.group(1)
            continue
        if current != entry:
            continue
        m = _FRAME_RE.search(line)
        if m:
            seen = True
            found["local_bytes"] = int(m.group(1))
            found["spill_store_bytes"] = int(m.group(2))
            found["spill_load_bytes"] = int(m.group(3))
        m = _USED_RE.search(line)
        if m:
            seen = True
            found["registers"] = int(m.group(1))
            sm = _SMEM_RE.search(line)
            found["shared_bytes"] = int(sm.group(1)) if sm else 0
            cm = _CMEM_RE.search(line)
            if cm:
                found["constant_bytes"] = int(cm.group(1))
    if not seen:
        return None
    for key in ("registers", "shared_bytes", "local_bytes", "spill_store_bytes", "spill_load_bytes"):
        found.setdefault(key, 0)
    return found
