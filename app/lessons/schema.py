"""Pydantic models of lesson.yaml and of the markdown front matter (contract A)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, HttpUrl

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


class LinkTitle(BaseModel):
    model_config = ConfigDict(extra="forbid")
    en: str = Field(min_length=1)
    ko: str = Field(min_length=1)


class Link(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url: HttpUrl
    title: LinkTitle


class LessonMeta(BaseModel):
    """lesson.yaml: everything about a lesson that does not depend on the language."""

    model_config = ConfigDict(extra="forbid")
    order: int = Field(ge=1, le=99)
    slug: str = Field(pattern=SLUG_PATTERN, max_length=80)
    status: Literal["published", "draft"]
    tags: list[str] = Field(default_factory=list)
    minutes: int | None = Field(default=None, ge=1, le=300)
    exercise: str | None = Field(default=None, pattern=r"^[a-z0-9_]+$")
    # The course page shows the "core" lessons as the course's track, then the "further" ones
    # under "Going further": lessons that build on the whole track rather than extend it.
    track: Literal["core", "further"] = "core"
    xp: int = Field(default=0, ge=0, le=1000)
    links: list[Link] = Field(default_factory=list)


class FrontMatter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(min_length=1, max_length=200)
    summary: str = Field(min_length=1)
