"""Shared fixtures for the engine tests: a temporary exercise folder, and one compiler per
test session (starting a sandboxed worker costs ~0.3 s)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

GEMM_SPEC = textwrap.dedent("""\
    id: gemm
    title: {en: "Matrix multiply", ko: "행렬 곱"}
    kernel:
      name: gemm
      params:
        - {name: A, type: "const float*", role: input,  shape: [M, K]}
        - {name: B, type: "const float*", role: input,  shape: [K, N]}
        - {name: C, type: "float*",       role: output, shape: [M, N]}
        - {name: M, type: int, role: size}
        - {name: N, type: int, role: size}
        - {name: K, type: int, role: size}
    output_grid: {rows: M, cols: N}
    launch_defaults: {block: [32, 32, 1], tile: [32, 32], smem: 0}
    references:
      naive: {file: naive.cu, launch: {block: [32, 32, 1], tile: [32, 32], smem: 0}}
      tiled: {file: tiled.cu, launch: {block: [32, 32, 1], tile: [32, 32], smem: 0}}
    sizes:
      correctness: [{M: 1, N: 1, K: 1}, {M: 17, N: 17, K: 17}, {M: 100, N: 257, K: 65}]
      timing: [{M: 1024, N: 1024, K: 1024}, {M: 2048, N: 2048, K: 2048}]
    tolerance: {rtol: 1.0e-5}
    work: {metric: TFLOP/s, expr: "2*M*N*K"}
    baseline: cublas_sgemm
    xp:
      pass: 40
      tiers:
        - {id: beat_naive, against: naive, speedup: 1.05, xp: 10}
        - {id: beat_tiled, against: tiled, speedup: 1.05, xp: 20}
    """)

NAIVE_GEMM = """\
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
"""


@pytest.fixture
def exercises_root(tmp_path: Path) -> Path:
    """A kernels/-like folder holding one exercise, gemm, written from GEMM_SPEC."""
    root = tmp_path / "kernels"
    (root / "gemm").mkdir(parents=True)
    (root / "gemm" / "spec.yaml").write_text(GEMM_SPEC, encoding="utf-8")
    return root


@pytest.fixture
def gemm_exercise(exercises_root):
    from kernels.engine.exercise import load_exercise

    return load_exercise("gemm", exercises_root)


@pytest.fixture(scope="session")
def compiler(tmp_path_factory):
    """One sandboxed compiler (and worker process) for the whole session; no disk cache."""
    from kernels.engine.compiler import Compiler, CompileWorker, WorkerSettings
    from kernels.engine.compiler.cache import CubinCache

    c = Compiler("sm_90", worker=CompileWorker(WorkerSettings(sandboxed=True)), cache=CubinCache())
    yield c
    c.close()
