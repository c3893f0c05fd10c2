"""Gettext catalogs: every UI string translated, committed .mo files match their .po sources."""
import gettext

import pytest

from app.core.config import LANGUAGES
from app.i18n import tools


@pytest.mark.parametrize("lang", LANGUAGES)
def test_mo_matches_po(lang):
    assert tools.mo_path(lang).read_bytes() == tools.compile_bytes(lang), \
        f"{tools.mo_path(lang)} is stale: run `python -m app i18n compile`"


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
