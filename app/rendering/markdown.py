"""Lesson markdown → HTML.

Conventions (contract A): sections start at ##, GFM tables, fenced code with a language and
a title, containers ``::: note|warning|exercise`` and the placeholder ``::: measured <id>``,
which becomes an HTML comment marker that the page fills in at request time with the
newest measured numbers (so cached lesson HTML never goes stale when results change).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.container import container_plugin

from app.i18n import gettext_for
from app.rendering.code import render_code_block

MEASURED_MARKER = "<!--measured:{}-->"
MEASURED_PATTERN = re.compile(r"<!--measured:([a-z0-9_]+|ladder:\d{1,2}-\d{1,2})-->")
_MEASURED_INFO = re.compile(r"^measured\s+([a-z0-9_]+)\s*$")
# ``::: ladder 04-13``: measured numbers of GEMM ladder rungs 4..13 (app/ladder/embed.py), filled
# in at request time through the same marker as ``::: measured`` (key "ladder:04-13").
_LADDER_INFO = re.compile(r"^ladder\s+(\d{1,2}-\d{1,2})\s*$")



def _labels(lang: str) -> dict[str, str]:
    """Labels inside rendered lesson HTML (rendering happens once per language and is cached)."""
    _ = gettext_for(lang)
    return {"note": _("Note"), "warning": _("Watch out"), "exercise": _("Exercise"),
            "copy": _("Copy"), "copied": _("Copied")}


@dataclass
class RenderedBody:
    html: str
    headings: list[tuple[int, str, str]] = field(default_factory=list)  # (level, id, text)
    measured: list[str] = field(default_factory=list)  # exercise ids of ::: measured, "ladder:NN-MM" of ::: ladder


# what markdown-it calls to render one token
RenderRule = Callable[[RendererHTML, Sequence[Token], int, OptionsDict, EnvType], str]


def _slugify(title: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).strip().replace(" ", "-")
    return re.sub(r"-{2,}", "-", slug) or "section"


def _box_renderer(kind: str, label: str) -> RenderRule:
    def render(self: RendererHTML, tokens: Sequence[Token], idx: int, _options: OptionsDict, _env: EnvType) -> str:
        if tokens[idx].nesting == 1:
            return f'<aside class="box box--{kind}"><p class="box__label">{escape(label)}</p>\n'
        return "</aside>\n"
    return render


def _measured_render(self: RendererHTML, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    if token.nesting == 1:
        match = _MEASURED_INFO.match(token.info.strip())
        exercise = match.group(1) if match else ""
        env.setdefault("measured", []).append(exercise)
        return MEASURED_MARKER.format(exercise) if exercise else ""
    return ""


def _ladder_render(self: RendererHTML, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    if token.nesting == 1:
        match = _LADDER_INFO.match(token.info.strip())
        key = f"ladder:{match.group(1)}" if match else ""
        env.setdefault("measured", []).append(key)
        return MEASURED_MARKER.format(key) if key else ""
    return ""


def _shared_section_ids(state: StateCore) -> None:
    """Give the h2/h3 headings the ids in env["section_ids"] ([(level, id)], from the other language's
    text), so a section has one id in both languages: a link or a language switch lands on the same
    section. Only when the two texts have the same headings at the same levels; else each keeps its own.
    Runs before the anchors plugin, which keeps an id that a heading already has."""
    wanted = state.env.get("section_ids") if isinstance(state.env, dict) else None
    if not wanted:
        return
    heads = [t for t in state.tokens if t.type == "heading_open" and t.tag in ("h2", "h3")]
    if [int(t.tag[1]) for t in heads] != [level for level, _ in wanted]:
        return
    for token, (_, section_id) in zip(heads, wanted, strict=True):
        token.attrSet("id", section_id)


def _quiet_permalinks(state: StateCore) -> None:
    """A heading's "#" link is for copying the address with a mouse: out of the tab order and not
    read aloud (a screen reader already says the heading; "#" after each one is noise)."""
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "link_open" and child.attrGet("class") == "header-anchor":
                child.attrSet("aria-hidden", "true")
                child.attrSet("tabindex", "-1")


def _build(lang: str) -> MarkdownIt:
    labels = _labels(lang)
    # Raw HTML is off: lesson files are content, not code.
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable(["table", "strikethrough"])
    md.use(anchors_plugin, min_level=2, max_level=3, slug_func=_slugify, permalink=True, permalinkSymbol="#")
    md.core.ruler.before("anchor", "shared_section_ids", _shared_section_ids)
    md.core.ruler.after("anchor", "quiet_permalinks", _quiet_permalinks)
    for kind in ("note", "warning", "exercise"):
        md.use(container_plugin, name=kind, render=_box_renderer(kind, labels[kind]))
    md.use(container_plugin, name="measured", validate=lambda params, *_: bool(_MEASURED_INFO.match(params.strip())),
           render=_measured_render)
    md.use(container_plugin, name="ladder", validate=lambda params, *_: bool(_LADDER_INFO.match(params.strip())), render=_ladder_render)

    def fence(self: RendererHTML, tokens: Sequence[Token], idx: int, _options: OptionsDict, _env: EnvType) -> str:
        token = tokens[idx]
        return render_code_block(token.content, token.info, labels["copy"], labels["copied"])

    md.add_render_rule("fence", fence)

    # Wide tables scroll inside their own box on a phone instead of stretching the page.
    def table_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return '<div class="table-scroll">' + self.renderToken(tokens, idx, options, env)

    def table_close(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return self.renderToken(tokens, idx, options, env) + "</div>\n"

    # A figure alone in its paragraph may scroll sideways on a phone (static/css/site.css) rather than
    # shrink its labels to 5 px; a region that scrolls must be reachable by keyboard, and says what it holds.
    def paragraph_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        children = (tokens[idx + 1].children or []) if idx + 1 < len(tokens) else []
        if len(children) == 1 and children[0].type == "image" and str(children[0].attrGet("src") or "").endswith(".svg"):
            return f'<p class="figure-scroll" tabindex="0" role="group" aria-label="{escape(children[0].content)}">'
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("paragraph_open", paragraph_open)
    md.add_render_rule("table_open", table_open)
    md.add_render_rule("table_close", table_close)
    return md


_PARSERS: dict[str, MarkdownIt] = {}


def render_markdown(text: str, lang: str, section_ids: list[tuple[int, str]] | None = None) -> RenderedBody:
    """``section_ids``: (level, id) of the other language's h2/h3 headings, to share their ids."""
    md = _PARSERS.get(lang)
    if md is None:
        md = _PARSERS[lang] = _build(lang)
    env: dict[str, Any] = {"section_ids": section_ids} if section_ids else {}
    tokens = md.parse(text, env)
    headings = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag in ("h2", "h3"):
            inline = tokens[i + 1]
            plain = "".join(child.content for child in (inline.children or []) if child.type in ("text", "code_inline"))
            headings.append((int(token.tag[1]), str(token.attrs.get("id", "")), plain.strip()))
    html = md.renderer.render(tokens, md.options, env)
    return RenderedBody(html, headings, env.get("measured", []))
