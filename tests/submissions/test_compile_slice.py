"""Compile time-slicing below the pipeline: the compile slots' own compile (``CompilerPool.compile_first``,
real NVRTC in its sandbox) takes a per-compile CPU limit, and the long-compile mark
(submission.long_compile_ms) migrates down and up on SQLite and PostgreSQL."""
from __future__ import annotations

LAUNCH = {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}


def test_the_compile_slots_first_slice_ends_a_real_bomb_and_lets_an_honest_kernel_compile(tmp_path):
    """A bomb given a 1 s slice ends as COMPILE_TIMEOUT naming that second (the CPU limit, not the 6 s one
    nor the wall deadline); an honest GEMM compiles under the same slice and its cubin is cached."""
    from app.bench.submissions_cluster import gemm_source
    from app.submissions.compiling import CompilerPool
    from tests.engine.test_sandbox import SLOW_SOURCE

    pool = CompilerPool(1, tmp_path / "cubins")
    try:
        timed_out = pool.compile_first("gemm", SLOW_SOURCE + gemm_source("bomb"), LAUNCH, cpu_s=1.0)
        assert timed_out is not None
        assert (timed_out.verdict.value, timed_out.message.code, timed_out.message.params) == (
            "COMPILE_ERROR", "COMPILE_TIMEOUT", {"seconds": 1.0})
        assert pool.compile_first("gemm", gemm_source("honest"), LAUNCH, cpu_s=1.0) is None
        assert any((tmp_path / "cubins").iterdir())
    finally:
        pool.close()


def test_the_long_compile_column_migrates_down_and_up(db_url):
    from alembic import command
    from sqlalchemy import inspect

    from app.core.db import make_engine
    from app.core.migrate import alembic_config, upgrade_to_head

    engine = make_engine(db_url)
    upgrade_to_head(engine)
    assert "long_compile_ms" in {c["name"] for c in inspect(engine).get_columns("submission")}
    config = alembic_config(engine)
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0013_ops")
    assert "long_compile_ms" not in {c["name"] for c in inspect(engine).get_columns("submission")}
    upgrade_to_head(engine)
    assert "long_compile_ms" in {c["name"] for c in inspect(engine).get_columns("submission")}
    engine.dispose()


def test_the_heaviest_kernels_here_compile_within_the_default_first_slice():
    """MKC_COMPILE_SLICE_SECONDS defaults to 2 s; the kernels that need the most NVRTC CPU here (0.6-0.9 s
    measured: ladder experiments 84 and 85, the Hopper wgmma rung) compile inside it, sandboxed, with the
    line info the compile slots ask for."""
    import re

    from app.core.config import Settings
    from kernels.engine.compiler import Compiler
    from kernels.engine.compiler.cache import CubinCache
    from kernels.engine.exercise import KERNELS_ROOT
    from kernels.engine.policy import check_source

    assert Settings().compile_slice_seconds == 2.0
    heaviest = ["ladder/experiments/84_f32_store_at_k8.cu", "ladder/experiments/85_f32_store_at_k12.cu",
                "ladder/13_wgmma.cu"]
    for name in heaviest:
        path = KERNELS_ROOT / name
        text = path.read_text(encoding="utf-8")
        arch = re.search(r"^//\s*arch:\s*(\S+)", text, re.M)
        compiler = Compiler(arch.group(1) if arch else "sm_90", cache=CubinCache(), lineinfo=True)
        try:
            kernel = compiler.compile(check_source(path.read_bytes()), cpu_s=2.0)
            assert kernel.cubin[:4] == b"\x7fELF" and not kernel.cached, name
        finally:
            compiler.close()
