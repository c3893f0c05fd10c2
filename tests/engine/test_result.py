"""The Result is the seam with the web app: it must round-trip through JSON unchanged and
always match the published JSON Schema (kernels/engine/result.schema.json)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from kernels.engine import codes
from kernels.engine.result import (
    SCHEMA_VERSION,
    CorrectnessCase,
    GpuInfo,
    LaunchInfo,
    Message,
    Mismatch,
    PhaseTiming,
    Resources,
    Result,
    Speedup,
    TierOutcome,
    Timing,
    Verdict,
    XpAward,
    json_schema,
)

from .schema_check import errors

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "kernels" / "engine" / "result.schema.json"


def full_result() -> Result:
    """A Result with every field filled, as the GPU side would produce for a pass."""
    return Result(
        verdict=Verdict.PASSED,
        message=Message(codes.PASSED, {"sizes": 3}),
        exercise="gemm",
        compile_log="kernel.cu(3): warning: variable \"x\" was declared but never referenced",
        resources=Resources(registers=40, shared_bytes=8192, local_bytes=0, spill_store_bytes=0,
                            spill_load_bytes=0, constant_bytes=400),
        launch=LaunchInfo(block=[16, 16, 1], tile=[64, 64], smem=0, grid=[32, 32, 1]),
        correctness=[
            CorrectnessCase(size={"M": 1, "N": 1, "K": 1}, ok=True),
            CorrectnessCase(size={"M": 17, "N": 17, "K": 17}, ok=True),
        ],
        timings=[
            Timing(kernel="learner", size={"M": 2048, "N": 2048, "K": 2048}, median_ms=0.9,
                   spread_ms=0.01, work_rate=19.1, unit="TFLOP/s", samples=30),
            Timing(kernel="naive", size={"M": 2048, "N": 2048, "K": 2048}, median_ms=2.8,
                   spread_ms=0.02, work_rate=6.1, unit="TFLOP/s", samples=30),
        ],
        speedups=[Speedup(against="naive", size={"M": 2048, "N": 2048, "K": 2048}, value=3.1,
                          ci_low=3.0, ci_high=3.2, confidence=0.95)],
        tiers=[TierOutcome(id="beat_naive", against="naive", threshold=1.05, met=True, xp=10)],
        xp=XpAward(pass_xp=40, tier_xp=10, total=50),
        flags=[Message(codes.FLAG_NOISY_TIMING, {"rse": 0.04})],
        gpu=GpuInfo(name="NVIDIA H200", compute_capability="9.0", sm_count=132, clock_mhz=1980,
                    driver="580.00", cuda_runtime="13.2", pci_bus_id="0000:19:00.0"),
        versions={"engine": "1.0", "nvrtc": "13.0", "cupy": "14.2.0"},
        phases=[PhaseTiming(name="compiling", ms=120.5), PhaseTiming(name="checking", ms=300.0)],
    )


def wrong_answer_with_nan() -> Result:
    return Result(
        verdict=Verdict.WRONG_ANSWER,
        message=Message(codes.WRONG_ANSWER, {"size": {"M": 17, "N": 17, "K": 17}, "index": [3, 4]}),
        correctness=[CorrectnessCase(size={"M": 17, "N": 17, "K": 17}, ok=False,
                                     mismatch=Mismatch(index=[3, 4], got=float("nan"), expected=1.5))],
    )


def test_schema_file_is_the_generated_schema():
    # python -m kernels.engine schema regenerates the file; this keeps them in step.
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == json_schema()


@pytest.mark.parametrize("make", [full_result, wrong_answer_with_nan,
                                  lambda: Result(verdict=Verdict.UNAVAILABLE, message=Message(codes.UNAVAILABLE_NO_GPU))])
def test_round_trip_and_schema(make):
    result = make()
    text = result.to_json()
    data = json.loads(text)
    assert data["schema"] == SCHEMA_VERSION
    assert errors(data, json_schema()) == []
    again = Result.from_json(text)
    assert again == Result.from_dict(result.to_dict())
    assert again.to_dict() == data
    assert isinstance(again.verdict, Verdict)


def test_non_finite_numbers_become_standard_json():
    data = json.loads(wrong_answer_with_nan().to_json())  # to_json uses allow_nan=False
    assert data["correctness"][0]["mismatch"]["got"] == "NaN"
    r = Result(verdict=Verdict.WRONG_ANSWER, message=Message("WRONG_ANSWER"),
               correctness=[CorrectnessCase(size={"n": 1}, ok=False,
                                            mismatch=Mismatch(index=[0], got=-math.inf, expected=math.inf))])
    mm = json.loads(r.to_json())["correctness"][0]["mismatch"]
    assert (mm["got"], mm["expected"]) == ("-Infinity", "Infinity")


def test_numpy_scalars_are_accepted():
    np = pytest.importorskip("numpy")
    r = Result(verdict=Verdict.WRONG_ANSWER, message=Message("WRONG_ANSWER"),
               correctness=[CorrectnessCase(size={"n": 5}, ok=False,
                                            mismatch=Mismatch(index=[np.int64(2)], got=np.float32(0.5), expected=np.float64(0.25)))])
    data = json.loads(r.to_json())
    assert data["correctness"][0]["mismatch"] == {"index": [2], "got": 0.5, "expected": 0.25}
    assert errors(data, json_schema()) == []


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d.update(verdict="ACCEPTED"), "enum at $.verdict"),
    (lambda d: d.pop("message"), "required at $: 'message' is a required property"),
    (lambda d: d["message"].update(code="wrong answer"), "pattern at $.message.code"),
    (lambda d: d.update(surprise=1), "additionalProperties at $: Additional properties are not allowed ('surprise'"),
    (lambda d: d["timings"][0].update(median_ms=-1), "minimum at $.timings[0].median_ms"),
    (lambda d: d["launch"].update(block=[1, 1]), "anyOf at $.launch: "),
    (lambda d: d["xp"].update(total=-1), "minimum at $.xp.total"),
    (lambda d: d["correctness"][0].update(ok="yes"), "type at $.correctness[0].ok"),
    (lambda d: d.update(schema="kernels-result/2"), "const at $.schema"),
    (lambda d: d["phases"][0].update(name="sleeping"), "enum at $.phases[0].name"),
])
def test_validator_catches_broken_results(mutate, expected):
    # Proves the schema can fail, at the right place and for the right reason.
    data = full_result().to_dict()
    mutate(data)
    found = errors(data, json_schema())
    assert any(expected in e for e in found), found


def test_newer_major_version_is_refused():
    data = full_result().to_dict()
    data["schema"] = "kernels-result/2"
    with pytest.raises(ValueError):
        Result.from_dict(data)


def test_unknown_fields_of_same_major_are_ignored():
    data = full_result().to_dict()
    data["added_in_1_1"] = {"x": 1}
    assert Result.from_dict(data) == full_result()


def test_codes_are_upper_snake_and_unique_per_name():
    all_codes = codes.all_codes()
    assert len(all_codes) > 30
    pattern = json_schema()["$defs"]["message"]["properties"]["code"]["pattern"]
    import re
    assert all(re.match(pattern, c) for c in all_codes)
