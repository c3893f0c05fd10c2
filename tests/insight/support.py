"""A graded Result that carries a real insight section: the learner's source compiled by the real
sandboxed NVRTC, disassembled by the real nvdisasm, placed on a roofline with the Result's
timings under the given ceilings (the rest of the Result is tests/panel/support.passed_result)."""
from __future__ import annotations

from functools import lru_cache

from kernels.engine import load_exercise
from kernels.engine.insight import finish, roofline, static_insight

CEILINGS = {"gpu": {"name": "NVIDIA H200"}, "dram_gbs": 4100.0, "fp32_tflops": 60.0, "tensor_tflops": 740.0,
            "file": "nvidia-h200-test-ceilings.json"}


@lru_cache(maxsize=1)
def _compiler():
    from kernels.engine.compiler import Compiler
    from kernels.engine.compiler.cache import CubinCache

    return Compiler("sm_90", cache=CubinCache(), lineinfo=True)


def with_insight(result, source: str, *, counters: dict | None = None, block=(32, 32, 1)):
    ex = load_exercise(result.exercise)
    c = _compiler().compile(source, ex.kernel, headers=ex.headers)
    s = static_insight(exercise_id=ex.id, cubin=c.cubin, ptx=c.ptx, arch="sm_90", block=block,
                       registers=c.resources["registers"], shared_bytes=c.resources["shared_bytes"],
                       resources=c.resources, source=source, sandboxed=c.sandboxed)
    timings = [t.__dict__ for t in result.timings]
    ins = finish(s, ex, timings, result.gpu.name if result.gpu else None, counters)
    assert ins is not None, "static_insight gave nothing to finish"
    ins["roofline"] = roofline.place(ex, timings, None, CEILINGS)
    result.insight = ins
    result.resources.registers = c.resources["registers"]
    return result


def stop_compiler():
    if _compiler.cache_info().currsize:
        _compiler().worker.stop()
        _compiler.cache_clear()
