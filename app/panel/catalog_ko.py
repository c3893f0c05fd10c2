"""Korean translations of the panel's and graders' msgids, and a tool that merges them into the
shared gettext catalogs without touching anyone else's entries.

Run ``python -m app.panel.catalog_ko`` after changing texts: it adds or updates only the msgids
listed here in ko.po (translated) and en.po (listed), then recompiles both .mo files.
"""
from __future__ import annotations

def load() -> dict[str, str]:
    from app.panel import catalog_ko_data

    return catalog_ko_data.KO


def sync() -> int:
    from babel.messages.pofile import write_po

    from app.i18n import tools

    ko_texts = load()
    for lang in ("en", "ko"):
        catalog = tools.read_catalog(lang)
        for msgid, korean in ko_texts.items():
            existing = catalog.get(msgid)
            string = korean if lang == "ko" else msgid  # en.po repeats the English msgid
            if existing is None:
                catalog.add(msgid, string)
            elif lang == "en" and not existing.string:
                existing.string = msgid
            elif lang == "ko" and (not existing.string or "fuzzy" in existing.flags):
                existing.string = korean  # never overwrite another part's translation
                existing.flags.discard("fuzzy")
        with tools.po_path(lang).open("wb") as handle:
            write_po(handle, catalog, width=100, omit_header=False, ignore_obsolete=True)
    tools.compile_all()
    return len(ko_texts)


if __name__ == "__main__":
    print(f"merged {sync()} panel/graders messages into ko.po and en.po")
