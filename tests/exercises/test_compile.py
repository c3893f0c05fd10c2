"""Every .cu of the exercises compiles with NVRTC for sm_90 through the engine's own compiler
(policy, sandbox, signature check), real NVRTC, no GPU needed."""

import pytest

from kernels.engine import load_exercise
from kernels.engine.compiler import get_compiler
from kernels.engine.policy import check_source

from .helpers import all_cu


@pytest.mark.parametrize("ex_id,path", all_cu(), ids=lambda v: str(v).split("kernels/")[-1])
def test_compiles_for_sm90(ex_id, path):
    ex = load_exercise(ex_id)
    compiler = get_compiler()
    ok, why = compiler.available()
    if not ok:
        pytest.skip(f"no compiler here: {why}")
    text = check_source(path.read_text(encoding="utf-8"))
    compiled = compiler.compile(text, ex.kernel, headers=ex.headers)
    assert compiled.cubin and compiled.arch.startswith("sm_90")
    assert compiled.resources.get("registers", 0) > 0
    assert not compiled.resources.get("spill_store_bytes"), "no reference or solution spills"
