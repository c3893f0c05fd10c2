"""Comment markup: a small markdown subset rendered with raw HTML off, then sanitised by nh3.

Allowed: paragraphs and line breaks, *emphasis* and **strong**, [links](https://...), `inline
code` and fenced code blocks (Pygments colours, the same lexers as lessons). Everything else
(headings, lists, images, tables, raw HTML) stays plain text. The renderer never emits raw HTML
from the input, and nh3 checks the result anyway against a closed list of tags, attributes,
classes and URL schemes: two independent walls, so one mistake is not a hole.
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererProtocol
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer
from pygments.token import STANDARD_TYPES

from app.rendering.code import LEXERS

LINK_REL = "nofollow noopener ugc"
ALLOWED_TAGS = {"p", "br", "em", "strong", "a", "code", "pre", "span"}
# "class" is governed by ALLOWED_CLASSES below (nh3 wants it out of this list)
ALLOWED_ATTRIBUTES = {"a": {"href"}}
# Pygments' short token classes ("k", "nf", "s2", ...) are the only classes a comment may carry.
PYGMENTS_CLASSES = {name for name in STANDARD_TYPES.values() if name}
ALLOWED_CLASSES = {"span": PYGMENTS_CLASSES, "pre": {"highlight"}, "code": {"language-" + k for k in LEXERS if k}}
URL_SCHEMES = {"http", "https", "mailto"}
_FORMATTER = HtmlFormatter(nowrap=True)


def _fence(self: RendererProtocol, tokens: Sequence[Token], idx: int, _options: OptionsDict, _env: EnvType) -> str:
    token = tokens[idx]
    language = token.info.strip().split(" ")[0].lower() if token.info else ""
    lexer = LEXERS.get(language, TextLexer)()
    code_class = f' class="language-{escape(language)}"' if language in LEXERS and language else ""
    return f'<pre class="highlight"><code{code_class}>{highlight(token.content, lexer, _FORMATTER)}</code></pre>\n'


def _code_block(self: RendererProtocol, tokens: Sequence[Token], idx: int, _options: OptionsDict,
                _env: EnvType) -> str:
    return f'<pre class="highlight"><code>{escape(tokens[idx].content)}</code></pre>\n'


def _build() -> MarkdownIt:
    md = MarkdownIt("zero", {"html": False, "breaks": True, "linkify": False, "typographer": False})
    md.enable(["emphasis", "link", "backticks", "fence", "newline", "escape", "entity", "autolink"])
    md.add_render_rule("fence", _fence)
    md.add_render_rule("code_block", _code_block)
    return md


_MD = _build()


def sanitise(html: str) -> str:
    return nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, allowed_classes=ALLOWED_CLASSES,
                     url_schemes=URL_SCHEMES, link_rel=LINK_REL, strip_comments=True,
                     clean_content_tags={"script", "style"})


def render_markdown(source: str) -> str:
    """The first wall alone: the markdown subset with raw HTML off (not yet sanitised)."""
    return str(_MD.render(source))


def render_comment(source: str) -> str:
    """Markdown subset -> safe HTML (a string ready to insert into a page)."""
    return sanitise(render_markdown(source))
