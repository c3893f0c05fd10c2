"""One sandboxed compiler with line info for the insight tests (real NVRTC, real nvdisasm)."""

from __future__ import annotations

import pytest

from kernels.engine import load_exercise
from kernels.engine.compiler import Compiler
from kernels.engine.compiler.cache import CubinCache


@pytest.fixture(scope="session")
def line_compiler():
    c = Compiler("sm_90", cache=CubinCache(), lineinfo=True)
    yield c
    c.worker.stop()


@pytest.fixture(scope="session")
def compile_gemm(line_compiler):
    """source -> CompiledKernel for the gemm signature."""
    ex = load_exercise("gemm")

    def run(source: str):
        return line_compiler.compile(source, ex.kernel, headers=ex.headers)

    return run


from tests.panel.conftest import app_client  # noqa: E402,F401  (the running-app fixture, re-exported)
