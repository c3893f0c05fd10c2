"""The one vocabulary (app/core/vocabulary.py): every name the engine, the submission states, the
XP ledger and the achievement registry can produce has a short label and a one-line explanation
in Korean and English, and no two names of one kind read the same."""
import re

import pytest

from app.core import vocabulary as v
from app.progress import xp
from app.progress.registry import ACHIEVEMENTS
from app.submissions import states
from kernels.engine import codes
from kernels.engine.result import Verdict

HANGUL = re.compile(r"[\uac00-\ud7a3]")

SOURCES = {
    v.STATE: set(states.ALL),
    v.VERDICT: {x.value for x in Verdict},
    v.CODE: set(codes.all_codes()),
    v.XP_SOURCE: set(xp.SOURCES),
    v.ACHIEVEMENT: {a.id for a in ACHIEVEMENTS},
}


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_every_name_has_a_term_and_no_stale_one(kind):
    table = set(v.TABLES[kind])
    assert sorted(SOURCES[kind] - table) == [], f"{kind}: add labels to app/core/vocabulary.py"
    assert sorted(table - SOURCES[kind]) == [], f"{kind}: these no longer exist"


def _all_terms():
    for kind, table in v.TABLES.items():
        for code in table:
            yield kind, code


@pytest.mark.parametrize(("kind", "code"), list(_all_terms()))
def test_both_labels_and_explanations(kind, code):
    en_label, ko_label = v.label(kind, code, "en"), v.label(kind, code, "ko")
    en_explain, ko_explain = v.explain(kind, code, "en"), v.explain(kind, code, "ko")
    assert en_label and en_explain and ko_label and ko_explain
    assert en_label != code and ko_label != code, "a label is the raw code"
    assert HANGUL.search(ko_label), f"{kind}/{code} has no Korean label: {ko_label}"
    assert HANGUL.search(ko_explain), f"{kind}/{code} has no Korean explanation: {ko_explain}"
    assert ko_label != en_label and ko_explain != en_explain
    assert len(en_label) <= 45, "a label is short; the explanation says the rest"
    assert re.search(r"요(\([^)]*\))?\.$", ko_explain), f"해요체, one sentence ending: {ko_explain}"


@pytest.mark.parametrize("kind", [v.STATE, v.VERDICT, v.GROUP, v.XP_SOURCE, v.ACHIEVEMENT, v.KERNEL])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_no_two_names_read_the_same(kind, lang):
    seen: dict[str, str] = {}
    for code in v.TABLES[kind]:
        text = v.label(kind, code, lang)
        assert text not in seen, f"{code} and {seen[text]} both read {text!r}"
        seen[text] = code


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_filter_never_offers_two_look_alikes(lang):
    """The graders' filter once offered "Not graded" and "Not graded yet" side by side."""
    offered = v.labels(v.VERDICT, list(v.VERDICTS), lang) + v.labels(v.GROUP, list(v.GROUPS), lang)
    assert len(set(offered)) == len(offered)
    for a in offered:
        for b in offered:
            assert a == b or not b.startswith(a), f"{a!r} / {b!r}"


def test_status_is_the_verdict_once_graded_else_the_state():
    assert v.status("done", "PASSED") == (v.VERDICT, "PASSED")
    # compiled without a GPU: stored with verdict UNAVAILABLE, but still waiting
    assert v.status("awaiting_gpu", "UNAVAILABLE") == (v.STATE, "awaiting_gpu")
    assert v.label(*v.status("awaiting_gpu", "UNAVAILABLE"), "ko") == v.label(v.CODE, "UNAVAILABLE_NO_GPU", "ko")
    assert v.status("queued", None) == (v.STATE, "queued")
    assert v.label(*v.status("done", "UNAVAILABLE"), "en") == "Could not be graded"


def test_unknown_names_show_as_themselves_and_none_as_nothing():
    assert v.label(v.CODE, "SOMETHING_NEW", "ko") == "SOMETHING_NEW"
    assert v.explain(v.CODE, "SOMETHING_NEW", "ko") == ""
    assert v.label(v.VERDICT, None, "en") == ""


def test_openapi_description_lists_both_languages():
    text = v.openapi_description(v.CODE)
    for code in codes.all_codes():
        assert f"`{code}`: {v.label(v.CODE, code, 'en')} / {v.label(v.CODE, code, 'ko')}" in text


def test_the_api_docs_carry_every_state_and_verdict_in_both_languages(tmp_path):
    from fastapi.testclient import TestClient

    from app.factory import create_app
    from tests.conftest import make_settings

    with TestClient(create_app(make_settings(tmp_path))) as client:
        description = client.get("/openapi.json").json()["info"]["description"]
    for kind in (v.STATE, v.VERDICT, v.CODE, v.XP_SOURCE):
        for code in v.TABLES[kind]:
            assert f"`{code}`: {v.label(kind, code, 'en')} / {v.label(kind, code, 'ko')}" in description, code
