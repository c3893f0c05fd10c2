"""kernels/ladder/nvrtc_build.py: the trusted compile shares the engine's options and ptxas parser."""
import re

import pytest

from kernels.ladder import nvrtc_build
from kernels.ladder.rungs import discover


def test_options_are_the_graders():
    """A rung submitted to the grader must compile exactly as the ladder compiled it."""
    from kernels.engine.compiler import Compiler

    compiler = Compiler("sm_90a")          # builds options only; no worker is started
    try:
        assert compiler.options() == ["-arch=sm_90a", *nvrtc_build.BASE_OPTIONS]
    finally:
        compiler.close()


def test_resources_come_from_the_ptxas_log():
    rung = next(r for r in discover() if r.stem == "09_warp_tiling")
    built = nvrtc_build.build(rung.source, rung.arch, rung.path.name)
    used = int(re.search(r"Used (\d+) registers", built.log).group(1))
    assert built.resources["registers"] == used > 128       # 09 is the register-hungry rung
    assert built.resources["spill_store_bytes"] == 0
    assert built.ptx.lstrip().startswith("//") and "\x00" not in built.ptx
    with pytest.raises(RuntimeError, match="NVRTC failed"):
        nvrtc_build.build('extern "C" __global__ void gemm() { undefined_name; }')
