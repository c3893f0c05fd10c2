"""The classes API's request schema says what the services accept: what it calls valid is taken (the API
fuzzer relies on it, tests/hardening/test_api_fuzz.py), and what the services refuse it does not offer."""
from __future__ import annotations

import jsonschema
import pytest


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    from app.factory import create_app
    from tests.conftest import make_settings

    return create_app(make_settings(tmp_path_factory.mktemp("openapi"))).openapi()


def _valid(schema: dict, value) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def test_every_time_zone_the_schema_offers_is_one_the_service_takes(spec):
    from app.classes.roster import valid_zone

    zones = spec["components"]["schemas"]["ClassCreate"]["properties"]["tz"]["enum"]
    assert "Asia/Seoul" in zones and "UTC" in zones and "America/Los_Angeles" in zones
    assert "Mars/Olympus" not in zones and "asia/seoul" not in zones
    assert all(valid_zone(name) == name for name in zones)


ALLOWED_TIMES = ["2026-12-04T23:59", "2026-12-04 23:59", "2026-11-30T09:00:30", "2026-12-04T23:59Z",
                 "2026-12-04T23:59+09:00", "1970-01-01T00:00-12:00", "2999-12-31T23:59+14:00", "2028-02-28T00:00"]
REFUSED_TIMES = ["soon", "2026-12-04", "2026-02-30T09:00", "2026-04-31T09:00", "2026-13-01T09:00", "2026-12-04T24:00",
                 "3000-01-01T00:00", "1969-12-31T23:59", "2026-12-04T23:59+9", " 2026-12-04T23:59", "2026-12-04T23:59 "]


@pytest.mark.parametrize("field", ["opens_at", "due_at"])
def test_assignment_times_the_schema_allows_are_the_ones_that_parse(spec, field):
    from app.classes.assignments import parse_local
    from app.classes.messages import ClassesError

    schema = spec["components"]["schemas"]["AssignmentCreate"]["properties"][field]
    for text in ALLOWED_TIMES:
        assert _valid(schema, text), text
        for zone in ("Asia/Seoul", "Pacific/Kiritimati", "Etc/GMT+12"):
            parse_local(text, zone)  # no refusal, no overflow
    for text in REFUSED_TIMES:
        assert not _valid(schema, text), text
    with pytest.raises(ClassesError):
        parse_local("2026-02-30T09:00", "UTC")


def test_an_assignment_title_is_described_as_the_service_counts_it(spec):
    schema = spec["components"]["schemas"]["AssignmentCreate"]["properties"]["title"]
    assert _valid(schema, "Week 3: tiling") and _valid(schema, "x" * 120)
    assert not _valid(schema, "x" * 121) and not _valid(schema, "   ") and not _valid(schema, "")
    assert "title" in spec["components"]["schemas"]["AssignmentCreate"]["required"]


CSV_BODY = "/api/classes/{class_id}/members.csv"
ROSTERS = ["username", "username\n", "username,email\r\nminji,minji@example.edu\r\n", "username\n민지\njun\n",
           "username\nminji", "username,email\nminji\njun,\n", "username,email\nminji,minji@example.edu\njun\n"]
# refused by the service (no "username" header and not one bare name a line), so not offered either
REFUSED_ROSTERS = ["", "name,email\nminji,m@x\n", "minji@example.edu\n"]


def _csv_body(spec) -> dict:
    return spec["paths"][CSV_BODY]["post"]["requestBody"]


def test_the_roster_csv_body_is_documented(spec):
    body = _csv_body(spec)
    assert body["required"] is True and list(body["content"]) == ["text/csv"]
    schema = body["content"]["text/csv"]["schema"]
    assert body["content"]["text/csv"]["example"] in ROSTERS
    assert all(_valid(schema, text) for text in ROSTERS)
    assert not any(_valid(schema, text) for text in REFUSED_ROSTERS)
    assert not _valid(schema, 'username\n"minji"\n')  # quoting has rules a pattern does not say: left out


def test_every_documented_roster_csv_is_imported(spec, db, make_user):
    from app.classes import roster
    from app.classes.messages import ClassesError

    teacher = make_user("teacher", role="instructor")
    make_user("minji")
    reports = []
    for i, text in enumerate(ROSTERS):
        row = roster.create_class(db, teacher, f"GPU 10{i}", tz="Asia/Seoul")
        report = roster.import_csv(db, row, text.encode())
        reports.append((report.added, report.unknown))
    assert reports == [([], []), ([], []), (["minji"], []), ([], ["민지", "jun"]), (["minji"], []),
                       (["minji"], ["jun"]), (["minji"], ["jun"])]
    for text in REFUSED_ROSTERS:
        with pytest.raises(ClassesError) as refused:
            roster.import_csv(db, roster.create_class(db, teacher, "GPU 200"), text.encode())
        assert refused.value.code == "csv_unreadable"
