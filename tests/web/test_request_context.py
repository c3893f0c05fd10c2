"""One request context: what create_app builds is read through app.core.services only, and every route
and dependency takes its database session, caller and permission through the Annotated aliases
(``db: SessionDep``, ``auth: AuthDep``), never through ``= Depends(...)`` defaults."""
from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import pytest
from fastapi import params

from app.accounts.auth import AccountsConfig
from app.comments.limits import CommentsConfig
from app.core.bodies import routes_of
from app.core.services import app_services
from app.factory import create_app
from app.lessons.catalog import Catalog
from app.submissions.runtime import SubmissionsRuntime

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
# the only two modules that touch app.state: the factory stores the services, the accessor reads them
STATE_ALLOWED = {"app/factory.py", "app/core/services.py"}


def state_reads(source: str) -> list[int]:
    """Lines that reach ``<something>.app.state`` or ``app.state``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "state":
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id == "app") or \
                    (isinstance(owner, ast.Attribute) and owner.attr == "app"):
                lines.append(node.lineno)
    return sorted(lines)


def _is_depends(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Name) and node.func.id == "Depends")
        or (isinstance(node.func, ast.Attribute) and node.func.attr == "Depends"))


def bare_depends(source: str, module: str) -> list[int]:
    """Lines with a ``Depends(...)`` that is not inside ``Annotated[...]``, a ``dependencies=`` argument
    (a route's or router's parameterless checks) or app/accounts/deps.py's ``CSRF`` list."""
    tree = ast.parse(source)
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    found = []
    for node in ast.walk(tree):
        if not _is_depends(node):
            continue
        allowed, at = False, node
        while at in parents:
            at, child = parents[at], at
            if isinstance(at, ast.Subscript) and isinstance(at.value, ast.Name) and at.value.id == "Annotated":
                allowed = True
            elif isinstance(at, ast.keyword) and at.arg == "dependencies":
                allowed = True
            elif isinstance(at, ast.AnnAssign) and module == "app/accounts/deps.py" \
                    and isinstance(at.target, ast.Name) and at.target.id == "CSRF" and child is at.value:
                allowed = True
        if not allowed:
            found.append(node.lineno)
    return sorted(found)


def _app_sources() -> dict[str, str]:
    return {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in sorted(APP.rglob("*.py"))}


def test_the_checks_find_what_they_look_for():
    planted = (
        "from fastapi import Depends, Request\n"
        "def route(request: Request, db=Depends(db_session)):\n"
        "    return request.app.state.catalog\n"
        "FORM = Depends(posted_form)\n"
        "def started(app):\n"
        "    return app.state.settings\n"
    )
    assert state_reads(planted) == [3, 6]
    assert bare_depends(planted, "app/x.py") == [2, 4]
    fine = (
        "from typing import Annotated\n"
        "SessionDep = Annotated[Session, Depends(db_session)]\n"
        "@router.post('/x', dependencies=[Depends(csrf_protect)])\n"
        "def route(request: Request, db: SessionDep):\n"
        "    return request.state.auth\n"
    )
    assert state_reads(fine) == []
    assert bare_depends(fine, "app/x.py") == []


def test_only_the_factory_and_the_accessor_touch_app_state():
    offenders = {module: lines for module, source in _app_sources().items()
                 if module not in STATE_ALLOWED and (lines := state_reads(source))}
    assert offenders == {}


def test_no_bare_depends_default_anywhere_in_the_app():
    offenders = {module: lines for module, source in _app_sources().items() if (lines := bare_depends(source, module))}
    assert offenders == {}


# dependency -> the alias every parameter that takes it is annotated with
ALIASES = {"db_session": "SessionDep", "current_auth": "OptionalAuthDep", "require_auth": "AuthDep",
           "csrf_protect": "CsrfDep", "signed_in_writer": "WriterDep", "services": "ServicesDep"}
PERMISSION_ALIASES = {"submissions.review": "ReviewerDep", "users.manage": "UserManagerDep",
                      "progress.view_others": "ProgressViewerDep", "xp.adjust": "XpAdjusterDep"}


def _annotation_name(function, name: str) -> str:
    annotation = inspect.signature(function).parameters[name].annotation
    if isinstance(annotation, str):  # the modules use postponed annotations: the alias's name
        return annotation
    globals_ = getattr(function, "__globals__", None) or getattr(type(function).__call__, "__globals__", {})
    return next((key for key, value in globals_.items() if value is annotation), repr(annotation))


def _key(call) -> str:
    permission = getattr(call, "permission", None)
    return f"permission:{permission}" if permission is not None else getattr(call, "__name__", repr(call))


@pytest.fixture
def app(settings):
    return create_app(settings)


def test_every_route_takes_its_dependencies_through_the_aliases(app):
    routes = routes_of(app)
    seen: dict[str, int] = {}
    wrong, defaults = [], []
    for route in routes:
        for name, parameter in inspect.signature(route.endpoint).parameters.items():
            if isinstance(parameter.default, params.Depends):
                defaults.append((route.path, name))
        stack = [(route.endpoint, route.dependant)]
        while stack:
            owner, dependant = stack.pop()
            for dep in dependant.dependencies:
                stack.append((dep.call, dep))
                if dep.name is None:  # a dependencies=[...] check: no parameter to annotate
                    continue
                key = _key(dep.call)
                expected = ALIASES.get(key) or PERMISSION_ALIASES.get(key.removeprefix("permission:"))
                if expected is None:
                    continue
                seen[expected] = seen.get(expected, 0) + 1
                got = _annotation_name(owner, dep.name)
                if got != expected:
                    wrong.append((route.path, getattr(owner, "__name__", repr(owner)), dep.name, got, expected))
    assert defaults == []
    assert wrong == []
    # the walk reached the routes: most take a session, many a caller, and each permission alias is used
    assert seen["SessionDep"] >= 100
    assert seen["AuthDep"] >= 20 and seen["OptionalAuthDep"] >= 20 and seen["WriterDep"] >= 20
    assert {"ReviewerDep", "UserManagerDep", "ProgressViewerDep", "XpAdjusterDep", "ServicesDep"} <= set(seen)


def test_the_services_are_built_once_typed_and_frozen(app):
    shared = app_services(app)
    assert app_services(app) is shared
    assert isinstance(shared.get(Catalog), Catalog)
    assert isinstance(shared.get(SubmissionsRuntime), SubmissionsRuntime)
    assert shared.get(CommentsConfig) is shared.get(CommentsConfig)  # one object: tests tune it in place
    assert shared.get(AccountsConfig).session_ttl.total_seconds() == 336 * 3600  # MKC_SESSION_HOURS' default
    with pytest.raises(LookupError):
        shared.get(dict)
    with pytest.raises(dataclasses.FrozenInstanceError):
        shared.settings = shared.settings  # type: ignore[misc]
    assert shared.reader_pages is not shared.page_cache


def test_an_app_not_built_by_create_app_has_no_services():
    from fastapi import FastAPI

    with pytest.raises(LookupError):
        app_services(FastAPI())
