"""Every route of the app tried as every kind of caller: a visitor, a learner, a grader, an
instructor and an admin. The routes come from the running app, so a route added tomorrow is tried
too; what each caller may do is written out here with literal values (graders review submissions,
instructors moderate comments, preview drafts and create classes, admins do everything and see every
class), so that a permission
granted to the wrong role, or a route guarded by the wrong permission, fails this test.

Signed-in callers use personal API tokens (no CSRF step), so a 403 is the permission check's own
answer ("forbidden"), never a missing CSRF token.
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.accounts.deps import require_auth, require_permission
from app.core.services import app_services
from app.factory import create_app
from tests.conftest import make_settings
from tests.submissions.conftest import add_user

ROLES = ("learner", "grader", "instructor", "admin")
CALLERS = ("visitor", *ROLES)

# Who holds each permission.
HOLDERS = {
    "lessons.preview": {"instructor", "admin"},
    "progress.view_others": {"instructor", "grader", "admin"},
    "submissions.review": {"grader", "admin"},
    "xp.adjust": {"grader", "admin"},
    "comments.moderate": {"instructor", "admin"},
    "users.manage": {"admin"},
    "classes.create": {"instructor", "admin"},  # inside a class, its roster roles decide (README "Teaching a class")
    "classes.all": {"admin"},
}

# The routes a permission guards (through require_permission), and the permission.
GUARDED = {
    ("GET", "/api/users/{username}/progress"): "progress.view_others",
    ("POST", "/api/xp/adjust"): "xp.adjust",
    ("POST", "/api/admin/users/{username}/role"): "users.manage",
    ("GET", "/{lang:lang}/admin/users"): "users.manage",
    ("POST", "/{lang:lang}/admin/users/{user_id}/role"): "users.manage",
    ("POST", "/{lang:lang}/admin/users/{user_id}/reset-link"): "users.manage",
    # connecting an LMS is an administrator's page (README "Connecting an LMS")
    ("GET", "/{lang:lang}/admin/lti"): "users.manage",
    ("POST", "/{lang:lang}/admin/lti"): "users.manage",
    ("POST", "/{lang:lang}/admin/lti/rotate-key"): "users.manage",
    ("POST", "/{lang:lang}/admin/lti/{platform_id}/delete"): "users.manage",
    ("POST", "/{lang:lang}/admin/lti/{platform_id}/deployments"): "users.manage",
    ("GET", "/api/graders/submissions"): "submissions.review",
    ("GET", "/api/graders/submissions.csv"): "submissions.review",
    ("GET", "/api/graders/stuck.csv"): "submissions.review",
    ("POST", "/api/graders/submissions/{sub_id}/note"): "submissions.review",
    ("POST", "/api/graders/submissions/{sub_id}/override"): "submissions.review",
    ("POST", "/api/graders/submissions/{sub_id}/rerun"): "submissions.review",
    ("GET", "/{lang:lang}/graders"): "submissions.review",
    ("GET", "/{lang:lang}/graders/stuck"): "submissions.review",
    ("GET", "/{lang:lang}/graders/submissions/{sub_id}"): "submissions.review",
    ("GET", "/{lang:lang}/graders/submissions/{sub_id}/{kind}"): "submissions.review",
    ("POST", "/{lang:lang}/graders/submissions/{sub_id}/{kind}"): "submissions.review",
}

# The routes that check a permission inside (their refusal names who may do it), and the permission.
CHECKED_INSIDE = {
    ("GET", "/{lang:lang}/reports"): "comments.moderate",
    ("POST", "/{lang:lang}/reports/{report_id}/{action}"): "comments.moderate",
    ("POST", "/{lang:lang}/reports/comments/{comment_id}/{action}"): "comments.moderate",
    ("POST", "/api/comments/{comment_id}/hide"): "comments.moderate",
    ("POST", "/api/comments/{comment_id}/unhide"): "comments.moderate",
    ("POST", "/api/comments/{comment_id}/restore"): "comments.moderate",
    ("POST", "/api/lessons/{slug}/comments/lock"): "comments.moderate",
    ("POST", "/api/lessons/{slug}/comments/unlock"): "comments.moderate",
    ("POST", "/{lang:lang}/classes"): "classes.create",
    # the site-wide leaderboard: a grader strikes an entry (README "Teaching a class"); a class's own
    # board is struck by the class's graders, whom its roster names, not the site role
    ("POST", "/{lang:lang}/boards/{exercise}/strike"): "submissions.review",
}

# Guarded by the caller's address or a token of its own (MKC_METRICS_ALLOW, MKC_METRICS_TOKEN), never by a
# role: a test client's address is not allowed, so every caller, an administrator too, gets 403.
ADDRESS_GUARDED = {("GET", "/metrics")}
REFUSALS = ("You do not have permission to do that.", "Only instructors and administrators can do that.")

# Values for path parameters: things that exist where that matters (a lesson, an exercise, a user),
# ids that name no row (so that no caller changes what the next one sees).
PATH_VALUES = {"lang": "en", "slug": "naive-vs-tiled-gemm", "exercise_id": "gemm", "username": "lee",
               "kind": "note", "action": "hide", "stem": "naive"}
NO_ROW = "999999"
LEFT_OUT = {
    # a server-sent event stream that stays open until its submission is graded; the same checks guard
    # GET /api/submissions/{sub_id}, which is tried
    ("GET", "/api/submissions/{sub_id}/events"),
    # these end the caller's own sessions or account; tried in tests/accounts/test_auth_http.py
    ("POST", "/signout-everywhere"), ("POST", "/{lang:lang}/profile/delete"), ("POST", "/{lang:lang}/profile/reset"),
}


def test_the_role_table_is_as_documented():
    from app.accounts.roles import PERMISSIONS, Permission, can
    from app.accounts.roles import ROLES as TABLE_ROLES

    assert set(TABLE_ROLES) == set(ROLES) and set(PERMISSIONS) == set(ROLES)
    assert {str(p) for p in Permission} == set(HOLDERS)
    for permission, holders in HOLDERS.items():
        for role in ROLES:
            assert can(role, Permission(permission)) == (role in holders), (role, permission)
        assert not can("nobody", Permission(permission))


def _routes(routes):
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):  # FastAPI keeps an included router as one entry
            yield from _routes(route.original_router.routes)


def _needs(route: APIRoute) -> tuple[set[str], bool]:
    """The permissions a route's dependencies ask for, and whether it needs a signed-in caller."""
    permissions, signed_in = set(), False
    stack = list(route.dependant.dependencies)
    while stack:
        dep = stack.pop()
        if isinstance(dep.call, require_permission):
            permissions.add(str(dep.call.permission))
        signed_in = signed_in or dep.call is require_auth
        stack.extend(dep.dependencies)
    return permissions, signed_in


# Built at collection, so that the parameters below are the app's own routes (requests go to a fresh app).
APP = create_app(make_settings(Path(tempfile.mkdtemp(prefix="permission-matrix-"))))
OPERATIONS = sorted({(method, route.path) for route in _routes(APP.router.routes) for method in route.methods
                     if method != "HEAD" and route.path not in ("/docs", "/redoc")} - LEFT_OUT)
NEEDS = {(method, route.path): _needs(route) for route in _routes(APP.router.routes) for method in route.methods}


def test_every_permission_guard_is_the_documented_one():
    guarded = {op: needs[0] for op, needs in NEEDS.items() if needs[0]}
    assert guarded == {op: {permission} for op, permission in GUARDED.items()}


@pytest.fixture(scope="module")
def callers(tmp_path_factory):
    app = create_app(make_settings(tmp_path_factory.mktemp("permission-matrix")))  # the same routes, a fresh database
    client = TestClient(app, raise_server_exceptions=False)
    client.__enter__()
    headers = {"visitor": {}}
    for name, role in (("lee", "learner"), ("gina", "grader"), ("ines", "instructor"), ("ada", "admin")):
        headers[role] = {"Authorization": f"Bearer {add_user(app, name, role)}"}
    yield client, headers
    client.__exit__(None, None, None)


def _url(path: str) -> str:
    return re.sub(r"\{(\w+)(:\w+)?\}", lambda m: PATH_VALUES.get(m.group(1), NO_ROW), path)


def _refused(answer) -> bool:
    """The role's refusal: 403 with the permission check's text (not a CSRF or other 403)."""
    return answer.status_code == 403 and any(text in answer.text for text in REFUSALS)


def _sent_to_sign_in(answer) -> bool:
    """A class page sends a visitor to the sign-in page (coming back afterwards) instead of a bare 401."""
    return answer.status_code == 303 and answer.headers["location"].startswith("/en/signin?next=/en/")


@pytest.mark.parametrize("method, path", OPERATIONS)
def test_every_route_as_every_caller(callers, method, path):
    client, headers = callers
    permission = GUARDED.get((method, path)) or CHECKED_INSIDE.get((method, path))
    signed_in_only = NEEDS[(method, path)][1]
    for caller in CALLERS:
        kwargs = {"json": {}} if method in ("POST", "PUT", "PATCH") else {}
        answer = client.request(method, _url(path), headers={**headers[caller], "Accept-Language": "en"},
                                follow_redirects=False, **kwargs)
        seen = (caller, answer.status_code, answer.text[:300])
        assert answer.status_code < 500, seen
        if (method, path) in ADDRESS_GUARDED:
            assert answer.status_code == 403, seen
        elif caller == "visitor":
            if permission or signed_in_only:  # a form's CSRF check may refuse a visitor before sign-in does
                assert _sent_to_sign_in(answer) or answer.status_code in (401, 403) and not _refused(answer), seen
        elif permission is not None and caller not in HOLDERS[permission]:
            assert _refused(answer), seen
        else:
            assert answer.status_code != 401 and not _refused(answer), seen


# A class's pages and reports: who may read them follows the class's roster, not the site role (README
# "Teaching a class"): a site learner, grader or instructor who is not on the roster is refused; a site
# administrator (classes.all) reads every class.
CLASS_READS = sorted(op for op in OPERATIONS if op[0] == "GET" and "{class_id}" in op[1])
ROSTER_DECIDES = {"visitor": "sign in", "learner": "refused", "grader": "refused", "instructor": "refused",
                  "admin": "reads"}


def test_the_class_reads_are_the_known_ones():
    assert CLASS_READS == [
        ("GET", "/api/classes/{class_id}"),
        ("GET", "/api/classes/{class_id}/assignments/{assignment_id}/insight"),
        ("GET", "/api/classes/{class_id}/boards/{exercise}"),
        ("GET", "/api/classes/{class_id}/gradebook"),
        ("GET", "/api/classes/{class_id}/gradebook.csv"),
        ("GET", "/api/classes/{class_id}/members"),
        ("GET", "/api/classes/{class_id}/submissions"),
        ("GET", "/{lang:lang}/classes/{class_id}"),
        ("GET", "/{lang:lang}/classes/{class_id}/assignments/{assignment_id}/insight"),
        ("GET", "/{lang:lang}/classes/{class_id}/boards/{exercise}"),
        ("GET", "/{lang:lang}/classes/{class_id}/gradebook"),
        ("GET", "/{lang:lang}/classes/{class_id}/submissions"),
    ]


@pytest.fixture(scope="module")
def someone_elses_class(callers):
    """A class run by an instructor who is none of the callers; no caller is on its roster."""
    from app.accounts.users import find_user
    from app.classes import roster

    client, _ = callers
    add_user(client.app, "kim", "instructor")
    with app_services(client.app).session_factory() as db:
        row = roster.create_class(db, find_user(db, "kim"), "Kim's class")
        db.commit()
        return str(row.id)


@pytest.mark.parametrize("method, path", CLASS_READS)
def test_a_class_is_read_by_its_roster_not_by_a_site_role(callers, someone_elses_class, method, path):
    client, headers = callers
    url = _url(path.replace("{class_id}", someone_elses_class))
    for caller, expected in ROSTER_DECIDES.items():
        answer = client.get(url, headers={**headers[caller], "Accept-Language": "en"}, follow_redirects=False)
        seen = (caller, answer.status_code, answer.text[:300])
        assert answer.status_code < 500, seen
        if expected == "sign in":
            assert _sent_to_sign_in(answer) or answer.status_code == 401, seen
        elif expected == "refused":
            assert _refused(answer), seen
        else:  # 404 only where the path names what the class lacks: no such assignment, leaderboards off
            missing = "{assignment_id}" in path or "{exercise}" in path
            assert answer.status_code == (404 if missing else 200) and not _refused(answer), seen
