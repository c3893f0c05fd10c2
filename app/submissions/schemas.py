"""Shapes for the OpenAPI page (/docs). The handlers parse the body themselves (to refuse an
oversized one before reading it all), so these models document rather than validate."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

NAIVE_GEMM = ('extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)\n'
              "{\n    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
              "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n    if (row < M && col < N) {\n"
              "        float acc = 0.0f;\n        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];\n"
              "        C[row * N + col] = acc;\n    }\n}\n")


# What the intake refuses as malformed (kernels/engine/launch.py parse_launch), said in the schema: a
# launch beyond the GPU's limits is well-formed and graded (RUNTIME_ERROR), so those limits are not here.
Positive = Annotated[int, Field(ge=1)]


class LaunchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    block: list[Positive] = Field(min_length=3, max_length=3, examples=[[32, 32, 1]])
    tile: list[Positive] = Field(min_length=2, max_length=2, examples=[[32, 32]],
                                 description="output columns and rows one block covers; grid = ceil(cols/tx), ceil(rows/ty)")
    smem: int = Field(default=0, ge=0, description="dynamic shared memory per block, bytes")
    profile: bool = Field(default=False, description="also read the GPU's counters (the result's 'inside your kernel')")


class SubmissionRequest(BaseModel):
    source: str = Field(description="CUDA C++ device code, UTF-8, at most 64 KiB, no #include", min_length=1,
                        pattern=r"\S")  # a source of spaces only is refused as empty
    launch: LaunchRequest | None = Field(default=None, description="omit for the exercise's defaults")

    model_config = {"extra": "forbid", "json_schema_extra": {"examples": [
        {"source": NAIVE_GEMM, "launch": {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}}]}}


class Links(BaseModel):
    self: str
    events: str
    cancel: str = Field(description="POST: take the submission back while it waits (queued or awaiting_gpu)")


class SubmissionCreated(BaseModel):
    id: int
    state: str = Field(examples=["queued"])
    state_text: str
    position: int | None = Field(description="1 = next in line")
    links: Links


class SubmissionView(BaseModel):
    id: int
    exercise: str = Field(examples=["gemm"])
    state: str = Field(description="queued | compiling | checking | timing | awaiting_gpu | done | cancelled")
    state_text: str = Field(description="the state in the reader's language (ko or en)")
    position: int | None = Field(None, description="place in line while queued or awaiting a GPU (1 = next)")
    estimate_s: int | None = Field(None, description="seconds until it is graded, roughly: the place in line "
                                   "times the median time of recent gradings; null before any")
    gpu_wait_until: str | None = Field(None, description="queued because you used your hourly GPU time: "
                                       "when your next job can run (UTC)")
    final: bool
    verdict: str | None = Field(None, examples=["PASSED"], description="null until final; then the verdict that "
                                "counts: a grader's override, else the automatic one")
    automatic_verdict: str | None = Field(None, examples=["PASSED"],
                                          description="null until final; the engine's own verdict")
    overridden: bool = Field(False, description="a grader overrode the automatic verdict")
    waiting_reason: str | None = Field(None, description="queued but held back: compile_budget | compile_cooldown | compile_long")
    waiting_until: str | None = Field(None, description="when a held-back submission may go on (UTC)")
    launch: dict[str, Any] | None = None
    source_bytes: int
    attempts: int
    created_at: str | None = None
    claimed_at: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    waited_ms: float | None = None
    dequeue_to_engine_ms: float | None = None
    links: Links
    result: dict[str, Any] | None = Field(None, description="the engine's Result JSON "
                                             "(kernels/engine/result.schema.json), unchanged")
    source: str | None = Field(None, description="only for the author and for graders/admins")


class SubmissionList(BaseModel):
    submissions: list[SubmissionView]


class ErrorBody(BaseModel):
    error: str = Field(examples=["source_too_large"])
    message: str = Field(examples=["The source is too large: 70000 bytes, at most 65536 bytes (64 KiB)."])
    params: dict[str, Any] = Field(default_factory=dict)
