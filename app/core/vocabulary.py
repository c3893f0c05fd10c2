"""One vocabulary for what the site says about submissions and XP.

Every submission state, verdict, engine message code (kernels/engine/codes.py), XP source,
achievement and reference kernel has ONE short label and ONE one-line explanation here, as
English msgids; Korean lives in ko.po like every other UI string (``python -m app i18n``).
Every page, the CSV exports and the OpenAPI descriptions take their words from this table, so
one state never reads four ways on four pages.

What a submission *is* for a reader is :func:`status`: its verdict once graded (``done``),
otherwise its state. A submission compiled on a server without a GPU is stored with the
verdict ``UNAVAILABLE`` but is still waiting (state ``awaiting_gpu``): it reads "Waiting for a
GPU" everywhere, and only a finished submission the server could not grade reads "Could not
be graded".

Depends only on app.core / app.i18n and the engine's constants; tests/web/test_vocabulary.py
fails when the engine, app/submissions/states.py, the XP ledger or the achievement registry
gains a name without both labels here.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.i18n import gettext_for


def _(text: str) -> str:  # marks msgids for extraction; translated per call below
    return text


@dataclass(frozen=True)
class Term:
    label: str  # short: a badge, a table cell, a filter option (English msgid)
    explain: str  # one line: a tooltip, the CSV's neighbour column, the API docs (English msgid)


STATE, VERDICT, GROUP, CODE, XP_SOURCE, ACHIEVEMENT, KERNEL = (
    "state", "verdict", "group", "code", "xp_source", "achievement", "kernel")

# app/submissions/states.py
STATES: dict[str, Term] = {
    "queued": Term(
        _("Queued"),
        _("Your submission is waiting in line; submissions are graded one at a time per GPU, taking turns between learners.")),
    "compiling": Term(_("Compiling"), _("The source is checked and compiled in a sandbox.")),
    "checking": Term(
        _("Checking correctness"),
        _("The kernel runs on the GPU at every test size and its output is compared with the reference.")),
    "timing": Term(_("Timing"), _("The kernel is timed against the reference kernels on the same GPU.")),
    "awaiting_gpu": Term(
        _("Waiting for a GPU"),
        _("It compiled. Correctness and timing need a GPU, which this server does not have right now; "
          "the result appears here once one grades it, even if you close the page.")),
    "done": Term(_("Graded"), _("Grading has finished; the verdict says how it went.")),
    "cancelled": Term(_("Cancelled"), _("Its author cancelled it while it waited; nothing ran on a GPU and it has no verdict.")),
}

# kernels.engine.result.Verdict
VERDICTS: dict[str, Term] = {
    "PASSED": Term(_("Passed"), _("Correct at every test size, and timed against the references.")),
    "WRONG_ANSWER": Term(_("Wrong answer"), _("The kernel ran, but its output differs from the reference (or it changed its inputs).")),
    "COMPILE_ERROR": Term(_("Compile error"), _("The source was refused or did not compile, so nothing ran.")),
    "RUNTIME_ERROR": Term(_("Runtime error"), _("The kernel failed on the GPU, e.g. by reading or writing outside its arrays.")),
    "TIME_LIMIT": Term(_("Time limit exceeded"), _("The kernel ran longer than the time allowed.")),
    "TOO_SLOW": Term(
        _("Too slow to time"),
        _("Correct at every test size, but so much slower than the naive kernel that it was not timed.")),
    "UNAVAILABLE": Term(
        _("Could not be graded"),
        _("The server could not grade it (no sandbox, compiler or worker failure). This is not your fault; please submit again.")),
}

# Groups a filter offers beside single verdicts.
PENDING = "PENDING"
GROUPS: dict[str, Term] = {
    PENDING: Term(_("Waiting or being graded"), _("Queued, compiling, on the GPU, or waiting for a GPU: no verdict yet.")),
}

# Verdicts a grader may set when overriding.
OVERRIDE_VERDICTS = ("PASSED", "WRONG_ANSWER", "RUNTIME_ERROR", "TIME_LIMIT", "COMPILE_ERROR")

# kernels/engine/codes.py: every code the engine can send (the full sentence with its numbers
# is app/panel/texts.py's; these name the code where a sentence does not fit).
CODES: dict[str, Term] = {
    "OK": Term(_("All good"), _("Nothing to report.")),
    "COMPILED": Term(_("Compiled"), _("The kernel compiled; nothing was run.")),
    "PASSED": Term(_("Correct and timed"), _("Correct at every test size, and timed.")),
    "SOURCE_TOO_LARGE": Term(_("Source too large"), _("The source is over the size limit.")),
    "SOURCE_EMPTY": Term(_("Empty source"), _("Nothing was submitted.")),
    "SOURCE_NOT_UTF8": Term(_("Not UTF-8 text"), _("The source is not valid UTF-8 text.")),
    "SOURCE_HAS_NUL": Term(_("NUL character"), _("The source contains a NUL character.")),
    "SOURCE_INCLUDE_FORBIDDEN": Term(_("#include not allowed"), _("Everything a kernel needs is already declared; #include is refused.")),
    "SOURCE_DIRECTIVE_FORBIDDEN": Term(_("Directive not allowed"), _("A preprocessor directive that is not allowed here.")),
    "SOURCE_TRIGRAPH_FORBIDDEN": Term(_("Trigraph not allowed"), _("Trigraphs (??=) are refused.")),
    "SOURCE_DIGRAPH_FORBIDDEN": Term(_("Digraph not allowed"), _("Digraphs (<: %:) are refused.")),
    "SOURCE_PRAGMA_FORBIDDEN": Term(_("#pragma not allowed"), _("Only the listed #pragma directives are allowed.")),
    "SOURCE_TOKEN_PASTE_FORBIDDEN": Term(_("Token pasting not allowed"), _("Token pasting (##) is refused.")),
    "SOURCE_RAW_STRING_FORBIDDEN": Term(_("Raw string not allowed"), _("Raw string literals are refused.")),
    "SOURCE_BACKSLASH_FORBIDDEN": Term(_("Stray backslash"), _("A backslash outside a string or character literal is refused.")),
    "SOURCE_CONTROL_CHAR": Term(_("Control character"), _("The source contains a control character.")),
    "SOURCE_NON_ASCII_CODE": Term(_("Non-ASCII code"), _("Non-ASCII characters are allowed only in comments and string literals.")),
    "SOURCE_CHARACTER_FORBIDDEN": Term(
        _("Character not allowed"),
        _("A character that is not part of C++ source ($ @ `) outside comments and literals.")),
    "LAUNCH_NOT_OBJECT": Term(_("Bad launch settings"), _("The launch settings must be an object with block, tile and smem.")),
    "LAUNCH_UNKNOWN_KEY": Term(_("Unknown launch setting"), _("A launch setting the grader does not know.")),
    "LAUNCH_MISSING_KEY": Term(_("Launch setting missing"), _("A required launch setting is missing.")),
    "LAUNCH_BAD_SHAPE": Term(_("Launch setting has the wrong length"), _("A launch setting has the wrong number of values.")),
    "LAUNCH_NOT_POSITIVE_INT": Term(
        _("Launch value not a positive whole number"),
        _("Block and tile sizes must be positive whole numbers.")),
    "LAUNCH_SMEM_NOT_INT": Term(_("Shared memory not a whole number"), _("Dynamic shared memory must be a whole number of bytes.")),
    "LAUNCH_PROFILE_NOT_BOOL": Term(_("Profile setting not true/false"), _("The profile launch setting must be true or false.")),
    "LAUNCH_BLOCK_DIM_TOO_LARGE": Term(_("Block too large along an axis"), _("A block dimension is over the GPU's limit.")),
    "LAUNCH_TOO_MANY_THREADS": Term(_("Too many threads per block"), _("The block has more threads than the GPU allows.")),
    "LAUNCH_SMEM_TOO_LARGE": Term(_("Too much shared memory"), _("More dynamic shared memory than a block may have.")),
    "LAUNCH_SMEM_TOTAL_TOO_LARGE": Term(
        _("Too much shared memory in total"),
        _("Dynamic plus static shared memory exceed a block's limit.")),
    "LAUNCH_GRID_TOO_LARGE": Term(_("Grid too large"), _("The grid would have more blocks than allowed; use a larger tile.")),
    "LAUNCH_TILE_TOO_LARGE": Term(_("Tile too large"), _("The tile is over the allowed size.")),
    "COMPILE_FAILED": Term(_("Did not compile"), _("The CUDA compiler reported errors; the log shows the lines.")),
    "COMPILE_KERNEL_MISSING": Term(_("Kernel not found"), _("No kernel with the exercise's name was found.")),
    "COMPILE_SIGNATURE_MISMATCH": Term(_("Wrong kernel parameters"), _("The kernel's parameters differ from the exercise's.")),
    "COMPILE_NOT_EXTERN_C": Term(_("Not extern \"C\""), _("The kernel must be declared extern \"C\".")),
    "COMPILE_NOT_GLOBAL": Term(_("Not a __global__ kernel"), _("The named function must be a __global__ kernel.")),
    "COMPILE_TIMEOUT": Term(_("Compile took too long"), _("Compiling went over the time limit and was stopped.")),
    "COMPILE_RESOURCE_LIMIT": Term(_("Compiler out of resources"), _("The compiler used up its CPU or memory allowance.")),
    "COMPILE_OUTPUT_TOO_LARGE": Term(_("Compiled kernel too large"), _("The compiled kernel is over the size limit.")),
    "UNAVAILABLE_NO_GPU": Term(_("Waiting for a GPU"), _("It compiled; this server has no GPU right now, so it waits for one.")),
    "UNAVAILABLE_NO_SANDBOX": Term(_("No compile sandbox"), _("The compile sandbox is missing on the server. Not your fault.")),
    "UNAVAILABLE_NVRTC": Term(_("CUDA compiler unavailable"), _("The CUDA compiler could not start on the server. Not your fault.")),
    "UNAVAILABLE_WORKER_CRASHED": Term(
        _("Grading worker stopped"),
        _("The grading worker stopped unexpectedly. Not your fault; submit again.")),
    "UNAVAILABLE_UNKNOWN_EXERCISE": Term(_("Unknown exercise"), _("There is no exercise with that name.")),
    "UNAVAILABLE_INTERNAL": Term(_("Server error"), _("Something went wrong on the server's side. Not your fault; submit again.")),
    "WRONG_ANSWER": Term(_("Wrong answer"), _("An output value differs from the reference.")),
    "RUNTIME_ILLEGAL_ADDRESS": Term(_("Illegal memory address"), _("The kernel read or wrote outside its arrays.")),
    "RUNTIME_LAUNCH_FAILED": Term(_("Launch failed"), _("The kernel could not be launched with these settings.")),
    "RUNTIME_ERROR": Term(_("Runtime error"), _("The kernel failed while running on the GPU.")),
    "TIME_LIMIT_EXCEEDED": Term(_("Time limit exceeded"), _("The kernel ran longer than the time allowed.")),
    "TOO_SLOW": Term(_("Too slow to time"), _("Correct, but far slower than the naive kernel, so timing stopped.")),
    "INPUT_MODIFIED": Term(_("Input modified"), _("The kernel wrote into an input array; inputs must stay unchanged.")),
    "WRONG_ANSWER_TIMED_RUN": Term(_("Wrong while timed"), _("Correct while checked, but wrong once timing started.")),
    "IMPLAUSIBLY_FAST": Term(_("Suspiciously fast"), _("Faster than this GPU can physically be; a grader will look at it.")),
    "NOISY_TIMING": Term(_("Noisy timing"), _("The timings varied a lot, so the speedups are less certain.")),
    "DEVICE_OUTPUT": Term(_("Printed output"), _("The kernel printed output with printf, which slows kernels down.")),
    "REGISTER_SPILL": Term(_("Register spills"), _("Registers spilled to local memory, which usually costs speed.")),
    "CACHED_COMPILE": Term(_("Cached build"), _("The same code was compiled before; the cached build was reused.")),
    "UNSANDBOXED_COMPILE": Term(_("Compiled without sandbox"), _("Compiled without the sandbox (a development setting).")),
}

# app/progress/xp/ledger.py SOURCES
XP_SOURCES: dict[str, Term] = {
    "lesson": Term(_("Lesson completed"), _("XP for completing a lesson.")),
    "exercise_pass": Term(_("Exercise passed"), _("XP for the first submission that passes an exercise.")),
    "exercise_tier": Term(_("Speed tier"), _("XP for reaching one of an exercise's speed tiers.")),
    "adjustment": Term(_("Grader's correction"), _("XP moved because a grader changed a verdict.")),
}

# app/progress/registry.py ACHIEVEMENTS (icons and rules live there)
ACHIEVEMENTS: dict[str, Term] = {
    "first_lesson": Term(_("First page turned"), _("Complete your first lesson.")),
    "all_lessons": Term(_("Whole track"), _("Complete every lesson of the course.")),
    "first_compile": Term(_("It compiles"), _("Submit a kernel that compiles.")),
    "first_correct": Term(_("Right answer"), _("Submit a kernel that passes every correctness check.")),
    "beat_naive": Term(_("Faster than naive"), _("Beat the naive reference kernel on this server's GPU.")),
    "beat_tiled": Term(_("Faster than tiled"), _("Beat the tiled reference kernel.")),
    "double_tiled": Term(_("Twice the tiles"), _("Run at least 2× as fast as the tiled reference kernel.")),
    "bilingual": Term(_("Both languages"), _("Read the same lesson in Korean and in English.")),
    "streak_3": Term(_("Three-day streak"), _("Study on three days in a row.")),
    "streak_7": Term(_("Seven-day streak"), _("Study on seven days in a row.")),
    "first_comment": Term(_("First comment"), _("Leave your first comment on a lesson.")),
    "helpful_reply": Term(_("Helpful reply"), _("Write a reply that another learner marks as helpful.")),
}

# The kernels a result compares (kernels/engine: Timing.kernel, Speedup.against, Tier.against)
KERNELS: dict[str, Term] = {
    "learner": Term(_("Your kernel"), _("The kernel you submitted.")),
    "naive": Term(_("Naive reference"), _("The simplest correct kernel: one thread per output, every read from global memory.")),
    "tiled": Term(_("Tiled reference"), _("The lesson's shared-memory tiled kernel.")),
    "baseline": Term(_("Library baseline"), _("The vendor library (cuBLAS or CuPy) on the same GPU.")),
}

TABLES: dict[str, dict[str, Term]] = {STATE: STATES, VERDICT: VERDICTS, GROUP: GROUPS, CODE: CODES,
                                      XP_SOURCE: XP_SOURCES, ACHIEVEMENT: ACHIEVEMENTS, KERNEL: KERNELS}


def term(kind: str, code: str | None) -> Term | None:
    return TABLES[kind].get(code or "")


def label(kind: str, code: str | None, lang: str) -> str:
    """The short label in ``lang``; an unknown code shows as itself (never a crash), "" for None."""
    if not code:
        return ""
    found = term(kind, code)
    return gettext_for(lang)(found.label) if found else code


def explain(kind: str, code: str | None, lang: str) -> str:
    found = term(kind, code)
    return gettext_for(lang)(found.explain) if found else ""


def labels(kind: str, codes: list[str] | tuple[str, ...], lang: str) -> list[str]:
    return [label(kind, c, lang) for c in codes]


def status(state: str | None, verdict: str | None) -> tuple[str, str]:
    """What a submission is for a reader, as (kind, code): its verdict once graded, else its state."""
    if state == "done" and verdict:
        return VERDICT, verdict
    return STATE, state or ""


def tier_label(against: str, speedup: float, lang: str) -> str:
    """A speed tier in words: "1.05× faster than Tiled reference", "at least 50% of the speed of ..."."""
    _t = gettext_for(lang)
    kernel = label(KERNEL, against, lang)
    if speedup < 1:
        return _t(_("at least %(pct)s%% of the speed of %(kernel)s")) % {"pct": round(speedup * 100), "kernel": kernel}
    # _() marks the msgid for extraction (a bare _t call is not extracted, and the Korean page said it in English)
    return _t(_("%(x)s× faster than %(kernel)s")) % {"x": f"{speedup:g}", "kernel": kernel}


def openapi_description(kind: str, intro: str = "") -> str:
    """Markdown for /docs: each code with its English and Korean label and what it means."""
    en, ko = gettext_for("en"), gettext_for("ko")
    lines = [intro, ""] if intro else []
    for code, t in TABLES[kind].items():
        lines.append(f"- `{code}`: {en(t.label)} / {ko(t.label)} — {en(t.explain)}")
    return "\n".join(lines)


def api_description() -> str:
    """The API's description in /docs and /openapi.json: every word a response may carry (states,
    verdicts, engine message codes, XP sources), each with its English and Korean label."""
    sections = [("Submission states (`state`)", STATE), ("Verdicts (`verdict`)", VERDICT),
                ("Engine message codes (`message.code`, `flags[].code`)", CODE), ("XP sources (`source`)", XP_SOURCE)]
    parts = ["Send `Authorization: Bearer <token>` (a personal token from your profile) or use the site's "
             "session cookie with its CSRF token. Add `?lang=ko` or `?lang=en` for messages in that language."]
    for title, kind in sections:
        parts.append(f"### {title}\n\n" + openapi_description(kind))
    return "\n\n".join(parts)
