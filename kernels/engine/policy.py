"""Source policy: what a learner's CUDA source may contain, checked before it reaches NVRTC.

Why so strict: NVRTC reads any file named by ``#include`` (absolute paths too) and echoes its
first line in the error log. The sandbox already hides the server's files; this policy is the
first wall, so that a submission that even tries to pull in a file is refused with a clear code.

How: we lex the source the way the compiler's first phases do (line splices first, then
comments and literals), and then

- reject every identifier that can pull a file or build a pragma: ``include``, ``include_next``,
  ``embed``, ``__has_include``, ``__has_include_next``, ``__has_embed``, ``_Pragma``,
  ``__pragma`` (anywhere outside string literals and comments, not only after ``#``: this also
  stops macro-built forms such as ``#define I include``);
- reject token pasting (``##``, ``%:%:``): NVRTC evaluates ``__has_include`` and runs
  ``_Pragma`` even when they were pasted together from harmless pieces;
- allow only a short list of directives and pragmas (``#line``, GNU line markers ``# 1 "f"``,
  ``#import``, ``#embed``, unknown pragmas ... are refused);
- reject the digraph ``%:`` (another spelling of ``#``), every trigraph (``??=`` is ``#``,
  ``??/`` is a backslash), raw string literals (their splice rules differ from ours, which
  could hide code from this scan), and stray backslashes outside literals (universal
  character names in identifiers);
- refuse every character outside the C++ basic source character set (``$``, ``@``, the backtick,
  non-ASCII) where it is not inside a literal or comment: NVRTC reads such a character as a token
  of its own, so a name glued to it (``$_Pragma``) is still the banned name to the compiler.
  tests/engine/test_policy_nvrtc.py proves it against NVRTC itself.

The text handed to the compiler is the one checked here, after only two normalisations
(newlines to ``\\n``, a leading byte-order mark dropped), so the two cannot disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import codes

MAX_SOURCE_BYTES = 64 * 1024

BANNED_IDENTIFIERS = frozenset({
    "include", "include_next", "embed", "import",
    "__has_include", "__has_include_next", "__has_embed",
    "_Pragma", "__pragma",
})
ALLOWED_DIRECTIVES = frozenset({
    "define", "undef", "if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif",
    "pragma", "error", "warning",
})
ALLOWED_PRAGMAS = frozenset({
    "unroll", "nounroll",
    "nv_diag_suppress", "nv_diag_warning", "nv_diag_error", "nv_diag_default",
})
RAW_STRING_PREFIXES = frozenset({"R", "LR", "uR", "UR", "u8R"})
TRIGRAPH_RE = re.compile(r"\?\?[=/'()!<>\-]")
# C0 control characters other than tab, newline, vertical tab, form feed (CR is normalised).
CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


@dataclass
class SourceRejected(Exception):
    """The source breaks the policy. ``code`` is from codes.py, ``params`` are JSON-safe."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.code} {self.params}"


def check_source(source: str | bytes) -> str:
    """Return the normalised source to compile, or raise SourceRejected.

    Order matters: size first (nothing else looks at a huge input), then bytes-level checks,
    then the lexical scan.
    """
    if isinstance(source, str):
        try:
            data = source.encode("utf-8")
        except UnicodeEncodeError as exc:  # lone surrogates in a str
            raise SourceRejected(codes.SOURCE_NOT_UTF8, {"offset": exc.start}) from None
    elif isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    else:
        raise TypeError("source must be str or bytes")

    if len(data) > MAX_SOURCE_BYTES:
        raise SourceRejected(codes.SOURCE_TOO_LARGE, {"bytes": len(data), "limit": MAX_SOURCE_BYTES})
    nul = data.find(b"\x00")
    if nul >= 0:
        raise SourceRejected(codes.SOURCE_HAS_NUL, {"offset": nul})
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceRejected(codes.SOURCE_NOT_UTF8, {"offset": exc.start}) from None

    text = normalise(text)
    if not text.strip():
        raise SourceRejected(codes.SOURCE_EMPTY, {})
    _scan(text)
    return text


def normalise(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _scan(text: str) -> None:
    m = CONTROL_RE.search(text)
    if m:
        raise SourceRejected(codes.SOURCE_CONTROL_CHAR, {"line": _line_of(text, m.start())})
    m = TRIGRAPH_RE.search(text)
    if m:
        raise SourceRejected(codes.SOURCE_TRIGRAPH_FORBIDDEN,
                             {"line": _line_of(text, m.start()), "token": m.group(0)})

    chars, lines = _splice(text)
    clean, clean_lines = _strip_comments_and_literals(chars, lines)
    _check_directives(clean, clean_lines)


def _splice(text: str) -> tuple[str, list[int]]:
    """Phase 2: remove backslash-newline. Returns the spliced text and each char's line.

    Only a backslash directly before the newline splices (NVRTC says a backslash followed by
    white space is *not* a splice; we agree, so both sides see the same lines).
    """
    out: list[str] = []
    lines: list[int] = []
    line = 1
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":
            i += 2
            line += 1
            continue
        out.append(c)
        lines.append(line)
        if c == "\n":
            line += 1
        i += 1
    return "".join(out), lines


_DIGITS = "0123456789"
# ASCII only: NVRTC reads a non-ASCII character as a token of its own, so counting it as part of
# an identifier would let `\u00a0_Pragma` pass the ban while NVRTC still sees `_Pragma`.
# Non-ASCII outside comments and literals is refused below (no valid kernel needs it).
# `$` is not an identifier character either: NVRTC reads it as a token of its own ("unrecognized
# token") and goes on, so `$_Pragma(...)` ran a pragma while we saw the harmless name `$_Pragma`.
_IDENT_START = re.compile(r"[A-Za-z_]")
_IDENT_CHARS = re.compile(r"[A-Za-z0-9_]*")
# The C++ basic source character set ([lex.charset]): outside comments and literals nothing else may
# appear, so every token we read is one the compiler reads the same way. Printable ASCII left out:
# `$`, `@` and the backtick (C0 controls are refused before the scan, non-ASCII has its own code).
BASIC_SOURCE_CHARACTERS = frozenset(
    " \t\v\f\n"
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    "_{}[]#()<>%:;.?*+-/^&|~!=,\\\"'"
)
_PP_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|'[0-9A-Za-z_]|[0-9A-Za-z_.])*")


def _strip_comments_and_literals(s: str, lines: list[int]) -> tuple[str, list[int]]:
    """Phase 3, simplified: comments become one space, literals become ``""``.

    Checks on the way: banned identifiers, raw strings, digraph ``%:``, token pasting, stray
    backslashes. Identifiers are read whole (so ``include_x`` is fine, ``include`` is not).
    """
    out: list[str] = []
    out_lines: list[int] = []
    i, n = 0, len(s)

    def emit(text: str, line: int) -> None:
        out.extend(text)
        out_lines.extend([line] * len(text))

    while i < n:
        c = s[i]
        line = lines[i]
        two = s[i:i + 2]
        if two == "//":
            j = s.find("\n", i)
            i = n if j < 0 else j
            emit(" ", line)
            continue
        if two == "/*":
            j = s.find("*/", i + 2)
            end = n if j < 0 else j + 2
            # One space and NO newlines, as the compiler does (phase 3): a comment spanning lines
            # joins them, so `#/*<newline>*/pragma ...` is one directive line here too and meets
            # the directive allowlist (keeping the newlines let it pass as a null directive).
            emit(" ", line)
            i = end
            continue
        if c in "\"'":
            i = _skip_literal(s, i, lines)
            emit('""', line)
            continue
        if c in _DIGITS or (c == "." and i + 1 < n and s[i + 1] in _DIGITS):
            m = _PP_NUMBER.match(s, i)
            assert m is not None  # a digit (or ".digit") always starts a pp-number
            emit(s[i:m.end()], line)
            i = m.end()
            continue
        if _IDENT_START.match(c):
            m = _IDENT_CHARS.match(s, i + 1)
            assert m is not None  # the pattern matches the empty string too
            ident = s[i:m.end()]
            j = m.end()
            if j < n and s[j] == "\\":
                raise SourceRejected(codes.SOURCE_BACKSLASH_FORBIDDEN, {"line": lines[j]})
            if ident in BANNED_IDENTIFIERS:
                raise SourceRejected(codes.SOURCE_INCLUDE_FORBIDDEN, {"line": line, "token": ident})
            if j < n and s[j] == '"' and ident in RAW_STRING_PREFIXES:
                raise SourceRejected(codes.SOURCE_RAW_STRING_FORBIDDEN, {"line": line})
            emit(ident, line)
            i = j
            continue
        if two == "%:":
            raise SourceRejected(codes.SOURCE_DIGRAPH_FORBIDDEN, {"line": line, "token": "%:"})
        if two == "##":
            raise SourceRejected(codes.SOURCE_TOKEN_PASTE_FORBIDDEN, {"line": line})
        if c == "\\":
            raise SourceRejected(codes.SOURCE_BACKSLASH_FORBIDDEN, {"line": line})
        if c not in BASIC_SOURCE_CHARACTERS:
            if ord(c) > 0x7F:
                raise SourceRejected(codes.SOURCE_NON_ASCII_CODE, {"line": line})
            raise SourceRejected(codes.SOURCE_CHARACTER_FORBIDDEN, {"line": line, "char": c})
        emit(c, line)
        i += 1
    return "".join(out), out_lines


def _skip_literal(s: str, i: int, lines: list[int]) -> int:
    """Index just past the string/char literal starting at s[i] (ends at newline if unclosed,
    as the compiler does)."""
    quote = s[i]
    j = i + 1
    n = len(s)
    while j < n:
        c = s[j]
        if c == "\\":
            if j + 1 < n and s[j + 1] == "\n":
                return j + 1  # not a splice any more (splices are gone): the literal ends here
            j += 2
            continue
        if c == quote:
            return j + 1
        if c == "\n":
            return j
        j += 1
    return n


_DIRECTIVE_RE = re.compile(r"[ \t\f\v]*#[ \t\f\v]*(?P<rest>.*)")


def _check_directives(clean: str, lines: list[int]) -> None:
    pos = 0
    for logical in clean.split("\n"):
        start = pos
        pos += len(logical) + 1
        m = _DIRECTIVE_RE.fullmatch(logical)
        if not m:
            continue
        line = lines[start] if start < len(lines) else 1
        rest = m.group("rest")
        if not rest.strip():
            continue  # the null directive
        word = re.match(r"[A-Za-z_][A-Za-z0-9_]*", rest)
        if not word:
            # GNU line markers (# 12 "file") and anything else that is not a word
            raise SourceRejected(codes.SOURCE_DIRECTIVE_FORBIDDEN, {"line": line, "directive": rest.split()[0][:32]})
        name = word.group(0)
        if name not in ALLOWED_DIRECTIVES:
            # a name is as long as the line: the message shows its first 32 characters
            raise SourceRejected(codes.SOURCE_DIRECTIVE_FORBIDDEN, {"line": line, "directive": name[:32]})
        if name == "pragma":
            after = rest[word.end():].strip()
            pw = re.match(r"[A-Za-z_][A-Za-z0-9_]*", after)
            pname = pw.group(0) if pw else after[:32]
            if pname not in ALLOWED_PRAGMAS:
                raise SourceRejected(codes.SOURCE_PRAGMA_FORBIDDEN,
                                     {"line": line, "pragma": pname[:32], "allowed": sorted(ALLOWED_PRAGMAS)})
