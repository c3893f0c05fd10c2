"""The ladder page's template context: one dictionary per rung, HTML fragments already rendered."""
from __future__ import annotations

from typing import Any

from markupsafe import Markup

from app.i18n import gettext_for
from app.ladder import present
from app.ladder.content import LadderContent, RungText
from app.ladder.results import BASELINE_NAMES, LadderResults, newest_ladder
from app.rendering.code import render_code_block
from app.rendering.markdown import render_markdown
from app.templating import page_context


def _notes_html(markdown: str, lang: str) -> Markup | str:
    """NOTES text (Korean from NOTES.ko.md on Korean pages, English otherwise) as HTML."""
    return Markup(render_markdown(markdown, lang).html) if markdown else ""


def _header_summary(rung: RungText, lang: str) -> dict[str, str]:
    """The source header's one-line summary in the page's language: on Korean pages the title line
    of headers.ko.md ("NN_stem — summary"), where it has one; otherwise the file's own English line."""
    if lang == "ko" and rung.header_ko:
        title_line = rung.header_ko.split("\n", 1)[0]
        return {"header_summary": title_line.split("—", 1)[-1].strip(), "header_lang": "ko"}
    return {"header_summary": rung.rung.title, "header_lang": "en"}


def _rung_view(rung: RungText, results: LadderResults | None, lang: str) -> dict[str, Any]:
    _ = gettext_for(lang)
    r = rung.rung
    lines = len(r.source.splitlines())
    # the rung's numbers, or None where the newest ladder run did not time this rung
    measured = results if results is not None and rung.stem in results.by_kernel else None
    return {
        "number": f"{rung.number:02d}", "stem": rung.stem, "anchor": rung.anchor, "file": r.path.name,
        "title": rung.title[lang], "teaches": rung.teaches[lang], **_header_summary(rung, lang),
        "dtype": _("float32 in, float32 out") if r.dtype == "f32" else _("half in, float accumulate and out"),
        "baseline": BASELINE_NAMES[present.baseline_of(rung)], "arch": r.arch,
        "block": "×".join(map(str, r.block)), "tile": f"{r.tile[1]}×{r.tile[0]}", "lines": lines,
        # the source (~600 KB for all rungs) loads when its <details> opens: rung_source_html
        "source_url": f"/{lang}/ladder/source/{rung.stem}",
        "notes_html": _notes_html(rung.notes_ko if lang == "ko" and rung.notes_ko else rung.notes_markdown, lang),
        "measured": measured is not None,
        "table_html": Markup(present.rung_table(rung, measured, lang)) if measured is not None else "",
        "resources": present.resources(rung, measured) if measured is not None else {},
    }


def rung_source_html(rung: RungText, lang: str) -> str:
    """One rung's highlighted source with its copy button (the ladder page fetches it on opening)."""
    _ = gettext_for(lang)
    return render_code_block(rung.source(lang), f'cuda title="kernels/ladder/{rung.rung.path.name}"', _("Copy"),
                             _("Copied"))


def page_context_for(lang: str, content: LadderContent, documents: list[dict[str, Any]], site_name: str) -> dict[str, Any]:
    results = newest_ladder(documents)
    context = page_context(lang, "/ladder", site_name)
    # the newest run, or None where it timed none of these rungs (the page then says "not measured")
    shown = results if results is not None and any(r.stem in results.by_kernel for r in content.rungs) else None
    context.update(
        rungs=[_rung_view(r, results, lang) for r in content.rungs],
        results=shown,
        caption=present.caption(shown, lang) if shown is not None else "",
        chart_html=Markup(present.overview_chart(content.rungs, shown, lang, "ladder-overview")) if shown is not None else "",
        not_measured_html=Markup(present.not_measured(lang)),
        targets_html=_notes_html(content.targets_ko if lang == "ko" and content.targets_ko else content.targets_markdown, lang),
    )
    return context
