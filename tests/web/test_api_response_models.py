"""Every /api/ operation says what it answers: a 2xx response whose schema names its fields (the models
beside each feature), never the empty schema FastAPI writes for a route that returns an untyped dict.
And an answer that a route sends with its own status or headers is checked against its model first."""
from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

# Operations whose success has no body at all, so nothing to describe: literal, with the reason.
NO_BODY = {
    ("delete", "/api/classes/{class_id}/members/{user_id}"): "204 No Content: the member is gone",
    ("delete", "/api/classes/{class_id}/assignments/{assignment_id}"): "204 No Content: the assignment is gone",
}
# Files and streams: their schema is a string in their own media type (a CSV file, server-sent events).
NOT_JSON = {
    ("get", "/api/classes/{class_id}/gradebook.csv"): "text/csv",
    ("get", "/api/graders/submissions.csv"): "text/csv",
    ("get", "/api/graders/stuck.csv"): "text/csv",
    ("get", "/api/submissions/{sub_id}/events"): "text/event-stream",
}


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    from app.factory import create_app
    from tests.conftest import make_settings

    return create_app(make_settings(tmp_path_factory.mktemp("openapi"))).openapi()


def _operations(spec):
    return [(method, path, op) for path, item in spec["paths"].items() for method, op in item.items()]


def _resolve(spec, schema):
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_every_api_operation_describes_its_success(spec):
    operations = _operations(spec)
    assert len(operations) >= 59  # every /api/ route, the stream and the CSV files included
    missing = []
    for method, path, op in operations:
        successes = {code: answer for code, answer in op["responses"].items() if code.startswith("2")}
        assert successes, f"{method} {path} documents no success"
        if (method, path) in NO_BODY:
            assert list(successes) == ["204"] and "content" not in successes["204"], (method, path)
            continue
        for code, answer in successes.items():
            content = answer.get("content", {})
            wanted = NOT_JSON.get((method, path), "application/json")
            if list(content) != [wanted]:
                missing.append(f"{method.upper()} {path} {code}: media types {list(content)}, not [{wanted}]")
                continue
            schema = _resolve(spec, content[wanted].get("schema") or {})
            if wanted != "application/json":
                ok = schema == {"type": "string"}
            else:  # an object whose fields are named
                ok = schema.get("type") == "object" and bool(schema.get("properties"))
            if not ok:
                missing.append(f"{method.upper()} {path} {code}: {json.dumps(schema)[:120]}")
    assert not missing, "\n".join(missing)


def test_new_answer_models_allow_no_other_keys(spec):
    """The models written for the JSON answers name every key: the schema says so (additionalProperties)."""
    for name in ("Progress", "CommentPage", "CommentDetail", "NotificationList", "Summary", "PanelSubmission",
                 "ExerciseConfig", "GraderList", "ReviewDone", "XpAdjusted", "RoleChanged"):
        assert spec["components"]["schemas"][name]["additionalProperties"] is False, name


def test_a_comment_is_described_field_by_field(spec):
    page = spec["components"]["schemas"]["CommentPage"]
    assert set(page["required"]) == {"count", "count_text", "sort", "page", "pages", "locked", "following", "comments",
                                     "html"}
    comment = spec["components"]["schemas"]["CommentOut"]
    assert comment["properties"]["state"]["enum"] == ["visible", "hidden", "deleted", "removed"]
    # the markdown source is only for the comment's author: not a required key
    assert "body" not in spec["components"]["schemas"]["CommentDetail"]["required"]


def test_a_checked_answer_keeps_its_status_headers_and_keys():
    from app.comments.schemas import CommentDetail
    from app.core.answers import checked

    data = {"id": 7, "parent_id": None, "lang": "ko", "html": "<p>hi</p>", "edited": False, "helpful": True}
    answer = checked(CommentDetail, data, status_code=201, headers={"Cache-Control": "no-store"})
    assert answer.status_code == 201
    assert answer.headers["cache-control"] == "no-store"
    assert json.loads(answer.body) == data
    assert answer.body.startswith(b'{"id":7,"parent_id":null,')


@pytest.mark.parametrize("wrong", [
    {"id": 7, "parent_id": None, "lang": "ko", "html": "", "edited": False, "helpful": True, "secret": 1},  # a key too many
    {"id": 7, "parent_id": None, "lang": "ko", "html": "", "edited": False},  # one missing
    {"id": "7", "parent_id": None, "lang": "ko", "html": "", "edited": False, "helpful": True},  # a number as text
])
def test_a_checked_answer_that_breaks_its_model_is_refused(wrong):
    from app.comments.schemas import CommentDetail
    from app.core.answers import checked

    with pytest.raises(ValidationError):
        checked(CommentDetail, wrong)
