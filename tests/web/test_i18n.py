"""Gettext catalogs: every UI string translated, committed .mo files match their .po sources."""
import gettext

import pytest

from app.core.config import LANGUAGES
from app.i18n import tools


@pytest.mark.parametrize("lang", LANGUAGES)
def test_mo_matches_po(lang):
    assert tools.mo_path(lang).read_bytes() == tools.compile_bytes(lang), \
        f"{tools.mo_path(lang)} is stale: run `python -m app i18n compile`"


def test_every_source_string_is_in_both_catalogs():
    template = tools.extract()
    wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    for lang in LANGUAGES:
        catalog = tools.read_catalog(lang)
        translated = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id and m.string and "fuzzy" not in m.flags}
        assert wanted - translated == set(), f"untranslated in {lang}: run `python -m app i18n update` and fill them in"


def test_korean_catalog_really_translates():
    ko = gettext.GNUTranslations(tools.mo_path("ko").open("rb"))
    assert ko.gettext("Lessons") == "레슨"
    assert ko.ngettext("%(num)d lesson", "%(num)d lessons", 5) % {"num": 5} == "레슨 5개"
