"""What a link can open: a lesson or an exercise (the lesson that holds it). Names are stored with the
link in the LMS as ``lesson:<slug>`` / ``exercise:<id>``, so renaming nothing breaks old links."""
from __future__ import annotations

from dataclasses import dataclass

from app.lessons.catalog import Snapshot
from app.lti.claims import parse_resource


@dataclass
class Choice:
    resource: str  # "lesson:<slug>" or "exercise:<id>"
    title: str


def path_for(snapshot: Snapshot, resource: str | None, lang: str) -> str | None:
    """Our page for ``resource`` in ``lang`` (the course index when none is named); None when the
    resource does not exist or is not published."""
    if resource is None:
        return f"/{lang}/"
    parsed = parse_resource(resource)
    if parsed is None:
        return None
    kind, ident = parsed
    lessons = snapshot.visible()
    if kind == "lesson":
        found = next((lesson for lesson in lessons if lesson.slug == ident), None)
    elif kind == "exercise":
        found = next((lesson for lesson in lessons if lesson.meta.exercise == ident), None)
    else:  # assignments belong to classes, which this link cannot open yet
        found = None
    return f"/{lang}/lessons/{found.slug}" if found is not None else None


def choices(snapshot: Snapshot, lang: str) -> list[Choice]:
    """Every published lesson, and every exercise under its lesson's title, in course order."""
    found: list[Choice] = []
    for lesson in snapshot.visible():
        title = lesson.text(lang)[0].title
        found.append(Choice(f"lesson:{lesson.slug}", title))
        if lesson.meta.exercise:
            found.append(Choice(f"exercise:{lesson.meta.exercise}", f"{title} · {lesson.meta.exercise}"))
    return found
