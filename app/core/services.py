"""What ``create_app`` builds once and every request shares: one typed object, read with ``services(request)``.

The factory stores it on ``app.state.services``; nothing else reads ``app.state``. The objects app/core
knows (settings, the database, the templates, the page caches) are fields. Each feature's own object
(the lesson catalog, the comments' limits, the grading runtime, ...) is kept by its class and read with
``get(Class)``, typed by the class it is given: app/core sits below the features and may not import
them (tests/test_architecture.py), so a field typed with a feature's class could not be declared here.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, TypeVar

from fastapi import Depends
from jinja2 import Environment
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker
from starlette.applications import Starlette
from starlette.requests import HTTPConnection

from app.core.config import Settings
from app.core.page_cache import PageCache

T = TypeVar("T")


@dataclass(frozen=True, eq=False)
class Services:
    settings: Settings
    engine: Engine
    session_factory: sessionmaker[Session]
    templates: Environment
    page_cache: PageCache  # pages that are the same for every visitor
    reader_pages: PageCache  # signed-in readers' pages (app/progress/reader_pages.py)
    parts: Mapping[type, object]  # each feature's object, by its class

    @classmethod
    def build(cls, *, settings: Settings, engine: Engine, session_factory: sessionmaker[Session],
              templates: Environment, page_cache: PageCache, reader_pages: PageCache,
              parts: Iterable[object]) -> Services:
        by_class: dict[type, object] = {}
        for part in parts:
            if type(part) in by_class:  # get() could only ever return one of them
                raise ValueError(f"two services of class {type(part).__name__}")
            by_class[type(part)] = part
        return cls(settings=settings, engine=engine, session_factory=session_factory, templates=templates,
                   page_cache=page_cache, reader_pages=reader_pages, parts=by_class)

    def get(self, kind: type[T]) -> T:
        """The feature object of class ``kind`` that create_app built (tests tune its fields in place)."""
        part = self.parts.get(kind)
        if not isinstance(part, kind):
            raise LookupError(f"create_app built no {kind.__name__}")
        return part

    @functools.cached_property
    def secret_key(self) -> str:
        """Loaded by start-up (the lifespan reads it first), not by create_app: when none is configured
        it is generated once into data_dir/secret_key, and building an app must not write files."""
        return self.settings.load_secret_key()


def app_services(app: Starlette) -> Services:
    """The application's services; for code that holds the app rather than a request (start-up, tests)."""
    found = getattr(app.state, "services", None)
    if not isinstance(found, Services):
        raise LookupError("this application was not built by create_app")
    return found


def services(request: HTTPConnection) -> Services:
    """The services of the application serving ``request``; also the dependency behind ServicesDep."""
    return app_services(request.app)


ServicesDep = Annotated[Services, Depends(services)]
