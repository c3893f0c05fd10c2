"""Fenced code blocks: Pygments highlighting, a title and language caption, a copy button."""
from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CppLexer, PythonLexer, TextLexer
from pygments.lexers.shell import BashLexer
from pygments.token import Keyword, Name

CUDA_WORDS = frozenset("""__global__ __device__ __host__ __shared__ __constant__ __restrict__
__syncthreads __syncwarp __shfl_down_sync __shfl_xor_sync __shfl_sync __launch_bounds__
threadIdx blockIdx blockDim gridDim warpSize""".split())


class CudaCppLexer(CppLexer):  # type: ignore[misc]  # pygments ships no type information
    """The C++ lexer, with CUDA's qualifiers and built-ins coloured as keywords."""

    name = "CUDA C++"

    def get_tokens_unprocessed(self, text: str, stack: tuple[str, ...] = ("root",)) -> Iterator[tuple[int, Any, str]]:
        for index, token, value in super().get_tokens_unprocessed(text, stack):
            if token in Name and value in CUDA_WORDS:
                token = Keyword.Pseudo if value.startswith("__") else Name.Builtin
            yield index, token, value


# CUDA C++ is C++ plus a few qualifiers (see CudaCppLexer above).
LEXERS = {"cuda": CudaCppLexer, "cpp": CppLexer, "c++": CppLexer, "c": CppLexer,
          "python": PythonLexer, "py": PythonLexer, "bash": BashLexer, "sh": BashLexer,
          "text": TextLexer, "": TextLexer}
LANGUAGE_NAMES = {"cuda": "cuda", "cpp": "c++", "c++": "c++", "c": "c", "python": "python",
                  "py": "python", "bash": "shell", "sh": "shell", "text": "text", "": "text"}
TITLE = re.compile(r'title="([^"]*)"')
_FORMATTER = HtmlFormatter(nowrap=True)
# Whitespace needs no colour; dropping its spans makes lesson pages ~15% smaller.
_WHITESPACE_SPAN = re.compile(r'<span class="w">([^<]*)</span>')


def parse_info(info: str) -> tuple[str, str, set[str]]:
    """``cuda fragment title="Naive GEMM"`` -> ("cuda", "Naive GEMM", {"fragment"})."""
    info = info.strip()
    match = TITLE.search(info)
    title = match.group(1) if match else ""
    rest = TITLE.sub("", info).split()
    language = rest[0].lower() if rest else ""
    return language, title, set(rest[1:])


def render_code_block(code: str, info: str, copy_label: str, copied_label: str) -> str:
    language, title, flags = parse_info(info)
    lexer = LEXERS.get(language, TextLexer)()
    highlighted = _WHITESPACE_SPAN.sub(r"\1", highlight(code, lexer, _FORMATTER))
    lang_name = LANGUAGE_NAMES.get(language, language or "text")
    caption = escape(title) if title else ""
    kind = " code--fragment" if "fragment" in flags else ""
    return (
        f'<figure class="code{kind}" data-lang="{escape(lang_name)}">'
        f'<figcaption class="code__caption">'
        f'<span class="code__title">{caption}</span>'
        f'<span class="code__lang">{escape(lang_name)}</span>'
        f'<button type="button" class="code__copy" data-copy data-copied="{escape(copied_label)}">{escape(copy_label)}</button>'
        f"</figcaption>"
        f'<pre class="highlight"><code>{highlighted}</code></pre>'
        f"</figure>\n"
    )


# Token colours: Pygments' 'xcode' for light pages (every colour at least 4.5:1 on the code background,
# WCAG 2.2 AA; 'friendly', used before, had comments at 2.8:1) and 'github-dark' for dark ones.
LIGHT_STYLE, DARK_STYLE = "xcode", "github-dark"
LIGHT_CODE_BG, DARK_CODE_BG = "#f8f9fb", "#0d1117"


def stylesheet() -> str:
    """static/css/code.css (``python -m app.rendering.code > static/css/code.css``; a test holds the file to it)."""
    def rules(style: str, prefix: str, *, with_base: bool) -> list[str]:
        lines = HtmlFormatter(style=style).get_style_defs(f"{prefix} .highlight").splitlines()
        token = f"{prefix} .highlight ."
        return [line for line in lines if (line.startswith(token) and not line.startswith(token + "hll"))
                or (with_base and line.startswith(f"{prefix} .highlight {{"))]

    return "\n".join([
        f"/* Code colours (generated from Pygments styles '{LIGHT_STYLE}' and '{DARK_STYLE}'"
        " by python -m app.rendering.code). */",
        f":root {{ --code-bg: {LIGHT_CODE_BG}; }}",
        f":root[data-theme=dark] {{ --code-bg: {DARK_CODE_BG}; }}",
        f'@media (prefers-color-scheme: dark) {{ :root:not([data-theme="light"]) {{ --code-bg: {DARK_CODE_BG}; }} }}',
        ".highlight { background: transparent !important; }",
        *rules(LIGHT_STYLE, ":root", with_base=False),
        *rules(DARK_STYLE, ":root[data-theme=dark]", with_base=True),
        "@media (prefers-color-scheme: dark) {",
        *rules(DARK_STYLE, ':root:not([data-theme="light"])', with_base=True),
        "}",
        ".highlight, .highlight * { background-color: transparent !important; }",
        "",
    ])


if __name__ == "__main__":
    print(stylesheet(), end="")


def highlighted_source(source: str, anchors: str = "src") -> str:
    """A whole kernel's source, highlighted with inline line numbers; line N carries the id
    ``{anchors}-N`` (a result's "Line N" leads there). Inline numbers: a table of numbers beside the
    code drifts out of line with the site's <pre> styles."""
    return str(highlight(source, CudaCppLexer(), HtmlFormatter(linenos="inline", lineanchors=anchors)))
