"""Build-time helpers for the gettext catalogs: extract msgids, update and compile .po files."""
from __future__ import annotations

import io
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

from app.i18n import DOMAIN, LANGUAGES, LOCALES_DIR

KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2)}
METHOD_MAP = [("app/**.py", "python"), ("templates/**.html", "jinja2")]
JINJA_OPTIONS = {"templates/**.html": {"trim_blocks": "true", "lstrip_blocks": "true"}}
# The repository root, where app/ and templates/ are: app/i18n/tools.py -> parents[2].
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def po_path(lang: str) -> Path:
    return LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    return LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"


def extract() -> Catalog:
    template = Catalog(project="matrix-kernels-course", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
        str(PROJECT_ROOT), METHOD_MAP, options_map=JINJA_OPTIONS, keywords=KEYWORDS
    ):
        if filename.startswith(("app/", "templates/")):
            template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return template


def read_catalog(lang: str) -> Catalog:
    with po_path(lang).open("rb") as handle:
        return read_po(handle, locale=lang)


def update(lang: str, template: Catalog) -> list[str]:
    """Merge new msgids into the .po file; returns msgids still untranslated."""
    path = po_path(lang)
    catalog = read_catalog(lang) if path.exists() else Catalog(locale=lang, charset="utf-8")
    catalog.update(template, no_fuzzy_matching=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog, width=100, omit_header=False, ignore_obsolete=True)
    return [m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id and not m.string]


def compile_bytes(lang: str) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, read_catalog(lang), use_fuzzy=False)
    return buffer.getvalue()


def compiled_messages(mo: bytes) -> tuple[str | None, dict[tuple[str | None, str | tuple[str, ...]], str | tuple[str, ...]]]:
    """What a compiled catalog says: its plural rule and every message (context, id) -> translation.

    The header's bookkeeping (``Generated-By``, creation dates) is left out on purpose: it changes
    with the Babel release that compiled the file, not with anything a reader sees.
    """
    catalog = read_mo(io.BytesIO(mo))
    def frozen(value: str | list[str] | tuple[str, ...] | None) -> str | tuple[str, ...]:
        if value is None:
            return ""
        return value if isinstance(value, str) else tuple(value)  # plural forms come back as lists

    messages = {(m.context, frozen(m.id)): frozen(m.string) for m in catalog if m.id}
    return catalog.plural_forms, messages


def compile_all() -> list[Path]:
    written = []
    for lang in LANGUAGES:
        mo_path(lang).write_bytes(compile_bytes(lang))
        written.append(mo_path(lang))
    return written
