"""The Result's versioned insight section: schema, round trip, old results still load."""

from __future__ import annotations

import json

from kernels.engine import load_exercise
from kernels.engine.insight import finish, static_insight
from kernels.engine.result import Message, Result, Verdict, json_schema
from tests.engine.schema_check import errors

from .test_sass import TILED


def test_result_with_insight_validates_and_round_trips(compile_gemm):
    c = compile_gemm(TILED)
    s = static_insight(exercise_id="gemm", cubin=c.cubin, ptx=c.ptx, arch="sm_90", block=(32, 32, 1),
                       registers=c.resources["registers"], shared_bytes=c.resources["shared_bytes"],
                       resources=c.resources, source=TILED, sandboxed=c.sandboxed)
    size = {"M": 2048, "N": 2048, "K": 2048}
    timings = [{"kernel": "learner", "size": size, "median_ms": 1.5}, {"kernel": "naive", "size": size, "median_ms": 2.5}]
    ceil = {"gpu": {"name": "G"}, "dram_gbs": 3000.0, "fp32_tflops": 50.0, "tensor_tflops": 600.0, "file": "g-ceilings.json"}
    ex = load_exercise("gemm")
    import kernels.engine.insight.roofline as roofline

    ins = finish(s, ex, timings, "G", {"available": False, "reason": "NCU_MISSING"})
    ins["roofline"] = roofline.place(ex, timings, "G", ceil)
    r = Result(verdict=Verdict.PASSED, message=Message("PASSED"), insight=ins)
    d = r.to_dict()
    assert errors(d, json_schema()) == []
    again = Result.from_json(r.to_json())
    assert again.insight == json.loads(r.to_json())["insight"]
    assert "_facts" not in again.insight


def test_old_result_without_insight_loads():
    old = {"schema": "kernels-result/1", "verdict": "PASSED", "message": {"code": "PASSED", "params": {}},
           "compile_log": "", "correctness": [], "timings": [], "speedups": [], "tiers": [],
           "xp": {"pass_xp": 0, "tier_xp": 0, "total": 0}, "flags": [], "versions": {}, "phases": []}
    r = Result.from_dict(old)
    assert r.insight is None
    assert errors(old, json_schema()) == []


def test_schema_rejects_a_bad_insight():
    r = Result(verdict=Verdict.PASSED, message=Message("PASSED"),
               insight={"version": "insight/1", "sass": {"available": True, "reason": None,
                                                         "instructions": [[0, "x", "NOP", None]]},
                        "ptx": {"lines": [], "truncated": False}, "hints": []})
    assert errors(r.to_dict(), json_schema())  # a line that is not a number
    r.insight["sass"]["instructions"] = [[0, 3, "NOP", None]]
    assert errors(r.to_dict(), json_schema()) == []
