"""Response models of the graders' API (/api/graders/...). Times are UTC ISO 8601 with a trailing Z."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.core.answers import Answer


class ReviewEntry(Answer):
    """One entry of a submission's audit trail: a grader's note, override or re-run."""
    id: int
    kind: Literal["note", "override", "rerun"]
    grader: str = Field(description="the grader's username as it was when they acted")
    verdict_before: str | None = Field(description="the verdict that counted before")
    verdict_after: str | None = Field(description="an override's verdict; null for a note or a re-run")
    reason: str
    xp_delta: int = Field(description="the compensating XP entry's amount")
    created_at: str | None


class ReviewDone(Answer):
    review: ReviewEntry
    repeated: bool = Field(description="true (status 200): an override had set this verdict already; nothing new happened")


class GraderRecord(Answer):
    id: int
    created_at: str
    learner: str
    exercise: str
    state: str
    verdict: str | None = Field(description="the engine's verdict")
    effective_verdict: str | None = Field(description="the verdict that counts: a grader's override, else the engine's")
    overridden: bool
    flagged: bool = Field(description="the engine raised a flag a grader should look at")
    flags: list[str]
    message: str | None = Field(description="the engine's message code")
    xp: int
    gpu: str | None
    speedup_naive: float | None
    speedup_naive_ci_low: float | None
    speedup_tiled: float | None
    speedup_tiled_ci_low: float | None
    speedup_baseline: float | None
    speedup_baseline_ci_low: float | None
    reviews: list[ReviewEntry]
    result: dict[str, Any] | None = Field(description="the engine's Result as stored (kernels/engine/result.schema.json)")
    source: str


class GraderList(Answer):
    submissions: list[GraderRecord] = Field(description="flagged first, then newest first")
    count: int
