"""The source policy against NVRTC itself: a verdict of "allowed" means NVRTC sees no banned directive.

NVRTC has no preprocess-only mode (``-E``, ``--preprocess`` are "unrecognized option"), so every
banned construct in this corpus is made observable in the compile log instead:

- ``_Pragma("message(\\"MARK\\")")`` that NVRTC runs logs the remark ``#pragma message: "MARK"``;
- an ``#include "canary.h"`` that NVRTC follows reads an in-memory header (given to NVRTC with the
  program) whose ``#error MARK`` logs ``#error directive: MARK`` (the marker is not in the source);
- ``__has_include("canary.h")`` that NVRTC evaluates is true, so the ``#error MARK`` it guards logs.

The log echoes source lines, so the markers are matched in the compiler's own words, never in an echo.

The corpus puts every character outside the C++ basic source character set (and a few invisible
ones) before, inside and after each banned name, and the same texts again inside comments and
string literals, where they are harmless and must be allowed. Every sample the policy allows is
compiled by NVRTC, and its log must hold no marker. test_the_corpus_is_real proves the markers work
and that the disguises really ran banned directives before the policy refused them (``$_Pragma``
was once allowed and ran a pragma).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kernels.engine.policy import SourceRejected, check_source

cupy_cuda = pytest.importorskip("cupy.cuda", reason="cupy's NVRTC binding is not installed")
nvrtc = cupy_cuda.nvrtc

MARK = "BANNED_DIRECTIVE_RAN_7f3a"
HEADER_NAME = "canary.h"
HEADER = f"#error {MARK}_INCLUDED\n"
OPTIONS = ["-arch=sm_90", "--std=c++17", "-default-device"]
ROOT = Path(__file__).resolve().parents[2]

# Outside the basic source set: the three printable ASCII ones, and non-ASCII that NVRTC reads as
# tokens of their own (spaces, zero-width, byte-order mark, a letter with an accent, line separator).
DISGUISES = ["$", "@", "`", "\u00a0", "\u200b", "\u3000", "\ufeff", "\u00e9", "\u2028"]


def _payloads(c: str) -> dict[str, tuple[str, str]]:
    """name -> (source, what NVRTC logs when the banned construct ran)."""
    pragma_ran = f'#pragma message: "{MARK}"'
    error_ran = f"#error directive: {MARK}"
    pragma = f'_Pragma("message(\\"{MARK}\\")")'
    return {
        "pragma_before": (f"int a; {c}{pragma}\nint b;\n", pragma_ran),
        "pragma_after": (f"int a; _Pragma{c}(\"message(\\\"{MARK}\\\")\")\n", pragma_ran),
        "pragma_in_macro": (f"#define P(s) {c}_Pragma(s)\nP(\"message(\\\"{MARK}\\\")\")\n", pragma_ran),
        "pragma_in_kernel": ('extern "C" __global__ void k(float* p) {\n'
                             f"    {c}{pragma}\n    p[0] = 1.0f;\n}}\n", pragma_ran),
        "pragma_directive": (f'#{c}pragma message("{MARK}")\nint a;\n', pragma_ran),
        "has_include": (f'#if {c}__has_include("{HEADER_NAME}")\n#error {MARK}\n#endif\n', error_ran),
        "has_include_macro": (f'#define H(x) {c}__has_include(x)\n#if H("{HEADER_NAME}")\n#error {MARK}\n#endif\n',
                              error_ran),
        "include_glued": (f'#{c}include "{HEADER_NAME}"\n', error_ran),
        "include_spaced": (f'# {c} include "{HEADER_NAME}"\n', error_ran),
        "include_before_hash": (f'{c}#include "{HEADER_NAME}"\n', error_ran),
    }


def _as_comment(text: str) -> str:
    return "".join(f"// {line}\n" for line in text.split("\n")) + "/* " + text + " */\nint z;\n"


def _as_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'const char* s = "{escaped}";\n'


def _corpus() -> list[tuple[str, str, str]]:
    samples = []
    for c in DISGUISES:
        for name, (source, marker) in _payloads(c).items():
            tag = f"{name}-U+{ord(c):04X}"
            samples.append((tag, source, marker))
            samples.append((f"{tag}-in-comment", _as_comment(source), marker))
            samples.append((f"{tag}-in-string", _as_string(source), marker))
    # Real kernels (the exercises' references, starters and solutions) are allowed and stay quiet.
    for path in sorted(ROOT.glob("kernels/*/*.cu")) + sorted(ROOT.glob("kernels/*/solutions/*/*.cu")):
        if path.parts[-2] != "ladder" and "ladder" not in path.parts:
            samples.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"), f"{MARK}"))
    return samples


CORPUS = _corpus()


def compile_log(source: str) -> str:
    prog = nvrtc.createProgram(source, "learner.cu", [HEADER.encode()], [HEADER_NAME.encode()])
    try:
        try:
            nvrtc.compileProgram(prog, OPTIONS)
        except nvrtc.NVRTCError:
            pass  # most hostile samples do not compile; only what the log says matters
        return nvrtc.getProgramLog(prog)
    finally:
        nvrtc.destroyProgram(prog)


def _verdict(source: str) -> str | None:
    """The text the compiler would get, or None when the policy refuses the source."""
    try:
        return check_source(source)
    except SourceRejected:
        return None


def test_allowed_means_nvrtc_sees_no_banned_directive():
    allowed, leaked = 0, []
    for tag, source, marker in CORPUS:
        text = _verdict(source)
        if text is None:
            continue
        allowed += 1
        log = compile_log(text)
        if marker in log or f"#error directive: {MARK}" in log:
            leaked.append((tag, log[:300]))
    assert not leaked, f"the policy allowed sources in which NVRTC ran a banned directive: {leaked}"
    # Not vacuous: every comment and string placement, and every real kernel, went through NVRTC.
    assert allowed >= 2 * len(DISGUISES) * len(_payloads("$")), allowed


@pytest.mark.parametrize("c", DISGUISES, ids=[f"U+{ord(c):04X}" for c in DISGUISES])
def test_every_disguised_banned_directive_is_refused(c):
    for name, (source, _marker) in _payloads(c).items():
        assert _verdict(source) is None, (name, c)


def test_the_corpus_is_real():
    """Without the policy, NVRTC runs the banned constructs behind these characters, and each marker
    shows in the log when the construct runs: a leak could not go unnoticed above."""
    for c in ["$", "@", "`", "\u00a0", "\u3000"]:
        source, marker = _payloads(c)["pragma_before"]
        assert marker in compile_log(source), c
    plain = {
        "pragma": (f'_Pragma("message(\\"{MARK}\\")")\n', f'#pragma message: "{MARK}"'),
        "include": (f'#include "{HEADER_NAME}"\n', f"#error directive: {MARK}_INCLUDED"),
        "has_include": (f'#if __has_include("{HEADER_NAME}")\n#error {MARK}\n#endif\n', f"#error directive: {MARK}"),
    }
    for name, (source, marker) in plain.items():
        assert marker in compile_log(source), name
