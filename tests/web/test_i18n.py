"""Gettext catalogs: every UI string translated, committed .mo files match their .po sources."""
import gettext
import io
import re

import pytest

from app.i18n import tools


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_mo_matches_po(lang):
    # The messages, not the bytes: a newer Babel writes another Generated-By header into the same catalog.
    assert tools.compiled_messages(tools.mo_path(lang).read_bytes()) == tools.compiled_messages(tools.compile_bytes(lang)), \
        f"{tools.mo_path(lang)} is stale: run `python -m app i18n compile`"


def _ko_po_with(tmp_path, edit) -> bytes:
    """ko.po changed by `edit` (a function of its text), compiled the way `i18n compile` does."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    po = tmp_path / "messages.po"
    po.write_text(edit(tools.po_path("ko").read_text(encoding="utf-8")), encoding="utf-8")
    out = io.BytesIO()
    with po.open("rb") as handle:
        write_mo(out, read_po(handle, locale="ko"), use_fuzzy=False)
    return out.getvalue()


def test_a_changed_translation_makes_the_committed_mo_stale(tmp_path):
    committed = tools.compiled_messages(tools.mo_path("ko").read_bytes())
    changed = _ko_po_with(tmp_path, lambda text: text.replace('msgstr "레슨"\n', 'msgstr "강의"\n', 1))
    assert committed != tools.compiled_messages(changed)
    assert tools.compiled_messages(changed)[1][(None, "Lessons")] == "강의"


def test_a_removed_translation_makes_the_committed_mo_stale(tmp_path):
    committed = tools.compiled_messages(tools.mo_path("ko").read_bytes())
    emptied = _ko_po_with(tmp_path, lambda text: text.replace('msgstr "레슨"\n', 'msgstr ""\n', 1))
    assert (None, "Lessons") not in tools.compiled_messages(emptied)[1]
    assert committed != tools.compiled_messages(emptied)


def test_only_the_babel_header_may_differ(tmp_path):
    # The same catalog written by another Babel release: only Generated-By differs, and that passes.
    # (Same length, so the .mo's offsets stay right.)
    other_babel = re.sub(rb"Generated-By: Babel [0-9.]+", lambda m: re.sub(rb"[0-9]", b"9", m.group(0)), tools.compile_bytes("ko"))
    assert other_babel != tools.compile_bytes("ko")
    assert tools.compiled_messages(other_babel) == tools.compiled_messages(tools.mo_path("ko").read_bytes())


def _ids(catalog, translated_only: bool) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog
            if m.id and (not translated_only or (m.string and "fuzzy" not in m.flags
                                                 and all(m.string if isinstance(m.string, tuple) else [m.string])))}


def test_every_source_string_is_in_both_catalogs():
    wanted = _ids(tools.extract(), translated_only=False)
    # English msgids are the English text, so en.po only has to list them; ko.po must translate.
    assert wanted - _ids(tools.read_catalog("en"), translated_only=False) == set(), "run `python -m app i18n update`"
    missing = sorted(wanted - _ids(tools.read_catalog("ko"), translated_only=True))
    assert missing == [], f"untranslated in ko.po ({len(missing)}): run `python -m app i18n update`, fill them in, then `i18n compile`"


def test_korean_catalog_really_translates():
    ko = gettext.GNUTranslations(tools.mo_path("ko").open("rb"))
    assert ko.gettext("Lessons") == "레슨"
    assert ko.ngettext("%(num)d lesson", "%(num)d lessons", 5) % {"num": 5} == "레슨 5개"
