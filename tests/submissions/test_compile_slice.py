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
