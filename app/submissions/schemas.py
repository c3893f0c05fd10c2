"""Shapes for the OpenAPI page (/docs). The handlers parse the body themselves (to refuse an
oversized one before reading it all), so these models document rather than validate."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

NAIVE_GEMM = ('extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)\n'
              "{\n    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
              "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n    if (row < M && col < N) {\n"
              "        float acc = 0.0f;\n        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];\n"
              "        C[row * N + col] = acc;\n    }\n}\n")


class LaunchRequest(BaseModel):
    block: list[int] = Field(min_length=3, max_length=3, examples=[[32, 32, 1]])
    tile: list[int] = Field(min_length=2, max_length=2, examples=[[32, 32]],
                            description="output columns and rows one block covers; grid = ceil(cols/tx), ceil(rows/ty)")
    smem: int = Field(default=0, ge=0, description="dynamic shared memory per block, bytes")


class SubmissionRequest(BaseModel):
    source: str = Field(description="CUDA C++ device code, UTF-8, at most 64 KiB, no #include")
    launch: LaunchRequest | None = Field(default=None, description="omit for the exercise's defaults")

    model_config = {"json_schema_extra": {"examples": [
        {"source": NAIVE_GEMM, "launch": {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}}]}}


class Links(BaseModel):
    self: str
    events: str


class SubmissionCreated(BaseModel):
    id: int
    state: str = Field(examples=["queued"])
    state_text: str
    position: int | None = Field(description="1 = next in line")
    links: Links


class SubmissionView(BaseModel):
    id: int
    exercise: str = Field(examples=["gemm"])
    state: str = Field(description="queued | compiling | checking | timing | awaiting_gpu | done")
    state_text: str = Field(description="the state in the reader's language (ko or en)")
    position: int | None = None
    gpu_wait_until: str | None = Field(None, description="queued because you used your hourly GPU time: "
                                       "when your next job can run (UTC)")
    final: bool
    verdict: str | None = Field(None, examples=["PASSED"])
    waiting_reason: str | None = Field(None, description="queued but held back: compile_budget | compile_cooldown")
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
