"""Response models of the exercise panel's API (/api/panel/...)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.core.answers import Answer


class LaunchDefaults(Answer):
    block: list[int] = Field(min_length=3, max_length=3, examples=[[32, 32, 1]])
    tile: list[int] = Field(min_length=2, max_length=2, examples=[[32, 32]])
    smem: int = Field(ge=0, description="dynamic shared memory per block, bytes")


class LaunchLimits(Answer):
    """The GPU's limits the editor checks a launch against before sending it."""
    max_threads: int
    max_block: list[int] = Field(min_length=3, max_length=3)
    max_smem: int
    max_tile: int


class ExerciseConfig(Answer):
    exercise: str = Field(examples=["gemm"])
    starter: str = Field(description="the starter code, English comments")
    starter_ko: str = Field(description="the same code with Korean comments")
    launch_defaults: LaunchDefaults
    declaration: str = Field(description="the kernel's declaration learners must write")
    limits: LaunchLimits


class PanelTier(Answer):
    id: str | None
    against: str | None = Field(description="the reference kernel the speed tier is measured against")
    met: bool = Field(description="false for every tier while a grader's verdict other than PASSED stands")
    xp: int | None


class PanelReview(Answer):
    kind: Literal["note", "override"] = Field(description="the re-runs are not shown on the panel")
    note: str = Field(description="the grader's reason")
    xp_delta: int
    verdict_label: str = Field(description="an override's verdict in the reader's language; empty for a note")


class PanelSubmission(Answer):
    id: int
    state: str
    state_label: str = Field(description="in the reader's language")
    verdict: str | None = Field(description="the verdict the learner sees (a grader's override wins); null until graded")
    verdict_label: str
    engine_verdict: str | None = Field(description="the automatic check's verdict")
    overridden: bool
    message: str = Field(description="the result in a sentence, in the reader's language (empty when overridden)")
    xp: int = Field(description="XP this submission earns")
    tiers: list[PanelTier]
    reviews: list[PanelReview]


class ProfileQueued(Answer):
    id: int = Field(description="the new submission's id")
