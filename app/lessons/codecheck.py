"""Check lesson code blocks: every complete ```cuda block must compile on its own with NVRTC
(contract A), and the Korean and English versions must show the same code.

NVRTC runs on the CPU (no GPU needed), through the grading engine's compiler. Comments may be translated, so code is compared with
comments and blank space removed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

from app.lessons.catalog import Lesson, Problem
from app.lessons.said import Said, _
from app.rendering.code import parse_info

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_STRINGS = re.compile(r'"(?:\\.|[^"\\])*"')
_PARSER = MarkdownIt("commonmark")


@dataclass
class CodeBlock:
    line: int  # 1-based line of the opening fence in the file
    language: str
    title: str
    fragment: bool
    code: str


def code_blocks(body: str, body_line: int) -> list[CodeBlock]:
    blocks = []
    for token in _PARSER.parse(body):
        if token.type == "fence" and token.map:
            language, title, flags = parse_info(token.info)
            blocks.append(CodeBlock(body_line + token.map[0], language, title, "fragment" in flags, token.content))
    return blocks


def normalized(code: str) -> str:
    """Code without comments and whitespace; string literals (they may hold '//') kept."""
    strings: list[str] = []

    def set_aside(m: re.Match[str]) -> str:  # a literal becomes \0N\0 until the comments are gone
        strings.append(m.group(0))
        return f"\0{len(strings) - 1}\0"

    code = _STRINGS.sub(set_aside, code)
    code = _COMMENTS.sub("", code)
    code = re.sub(r"\s+", "", code)
    return re.sub(r"\0(\d+)\0", lambda m: strings[int(m.group(1))], code)


class CompilerUnavailable(ImportError):
    """The engine cannot compile on this machine (no NVRTC, no sandbox)."""


def nvrtc_compile(source: str, name: str = "lesson.cu") -> str | None:
    """None when it compiles, else the compile log.

    Uses the grading engine's compiler (kernels/engine/compiler): the same NVRTC, flags,
    architecture and sandbox that learners' kernels meet, so a lesson never shows code the
    grader would refuse. Raises CompilerUnavailable when the engine cannot compile here.
    """
    from kernels.engine.compiler import CompileError, get_compiler
    from kernels.engine.result import Verdict

    try:
        get_compiler().compile(source)
    except CompileError as exc:
        if exc.verdict is Verdict.UNAVAILABLE:
            raise CompilerUnavailable(f"{exc.code} {exc.params}") from None
        return exc.log.strip() or f"{exc.code} {exc.params}"
    return None


def check_lesson_code(lesson: Lesson, compile_cuda: bool = True) -> list[Problem]:
    problems: list[Problem] = []
    per_lang = {lang: code_blocks(text.body, text.body_line) for lang, text in lesson.texts.items()}
    for lang, blocks in per_lang.items():
        path = lesson.texts[lang].path
        for block in blocks:
            if not block.language:
                problems.append(Problem(path, block.line, Said(_("code block without a language (cuda, cpp, text, ...)")),
                                        "warning"))
            if block.language in ("cuda", "cpp") and not block.title:
                problems.append(Problem(path, block.line, Said(_('%(language)s block without title="..."'),
                                                                language=block.language), "warning"))
            if compile_cuda and block.language == "cuda" and not block.fragment:
                if "#include" in block.code:
                    problems.append(Problem(path, block.line, Said(_("complete cuda blocks may not #include (mark excerpts "
                                                                           "`cuda fragment`)"))))
                    continue
                log = nvrtc_compile(block.code)
                if log is not None:
                    first = next((line for line in log.splitlines() if "error" in line), log.splitlines()[0])
                    # kernel.cu(N) counts from the block's first line; name the file line too.
                    where = re.match(r"\S*\((\d+)\)", first)
                    said = (Said(_("cuda block does not compile with NVRTC (at line %(line)s): %(error)s"),
                                 line=block.line + int(where.group(1)), error=first) if where else
                            Said(_("cuda block does not compile with NVRTC: %(error)s"), error=first))
                    problems.append(Problem(path, block.line, said))
    if set(per_lang) == {"ko", "en"}:
        ko, en = per_lang["ko"], per_lang["en"]
        for k, e in zip(ko, en, strict=False):  # twins; a count mismatch is reported apart
            if normalized(k.code) != normalized(e.code):
                problems.append(Problem(lesson.texts["ko"].path, k.line,
                                        Said(_("code differs from the English block at line %(line)s (beyond comments)"),
                                             line=e.line), "warning"))
    return problems
