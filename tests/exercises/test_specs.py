"""Every exercise spec loads, is self-consistent, and follows the course's rules (CPU only)."""

import pytest

from kernels.engine import load_exercise
from kernels.engine.launch import LaunchRejected, validate_launch

from .helpers import EXERCISES, KERNELS, all_cu, cu_files, expected_verdict, launch_of, load_reference

ODD = {1, 17, 33, 127, 129}


@pytest.mark.parametrize("ex_id", EXERCISES)
def test_spec_loads_with_required_parts(ex_id):
    ex = load_exercise(ex_id)
    assert ex.id == ex_id
    assert set(ex.title) == {"en", "ko"} and all(ex.title.values())
    assert {"naive", "tiled"} <= set(ex.references)
    for name, ref in ex.references.items():
        assert (ex.folder / ref.file).is_file(), name
    assert (ex.folder / "starter.cu").is_file()
    assert len(ex.solution_files("correct")) >= 2
    assert len(ex.solution_files("wrong")) >= 4
    assert ex.timing_sizes, "every exercise is timed"
    assert ex.pass_xp > 0 and ex.tiers


@pytest.mark.parametrize("ex_id", EXERCISES)
def test_correctness_sizes_include_odd_and_rectangular(ex_id):
    ex = load_exercise(ex_id)
    values = {v for s in ex.correctness_sizes for v in s.values()}
    assert ODD <= values, f"{ex_id} misses odd sizes {ODD - values}"
    assert any(len(set(s.values())) > 1 for s in ex.correctness_sizes), "no rectangular size"


@pytest.mark.parametrize("ex_id", EXERCISES)
def test_tolerance_constant_matches_reference(ex_id):
    ex = load_exercise(ex_id)
    ref = load_reference(ex_id)
    if ex.tolerance.get("model") == "exact":
        assert not hasattr(ref, "DEFAULT_C")
    else:
        assert float(ex.tolerance["c"]) == ref.DEFAULT_C


@pytest.mark.parametrize("ex_id", EXERCISES)
def test_memory_bound_tiers_are_reachable_kinds(ex_id):
    """GB/s exercises judge speed as a share of copy bandwidth, never as '2x tiled'."""
    ex = load_exercise(ex_id)
    if ex.work.metric == "GB/s":
        assert ex.baseline == "d2d_copy"
        for t in ex.tiers:
            if t.against == "tiled":
                assert t.speedup <= 1.1, t
            if t.against == "baseline":
                assert t.speedup <= 0.9, t   # a share of copy bandwidth, below 1
    else:
        assert ex.baseline == ("cublas_hgemm" if ex_id == "hgemm" else "cublas_sgemm")


def test_gemm_fast_asks_for_twice_tiled_at_2048_and_4096():
    ex = load_exercise("gemm_fast")
    assert [s["M"] for s in ex.timing_sizes] == [2048, 4096]
    assert any(t.against == "tiled" and t.speedup >= 2.0 for t in ex.tiers)
    assert ex.kernel == load_exercise("gemm").kernel  # same contract as gemm


@pytest.mark.parametrize("ex_id,path", all_cu(), ids=lambda v: str(v).split("kernels/")[-1])
def test_declared_launch_is_valid(ex_id, path):
    ex = load_exercise(ex_id)
    launch = launch_of(path)
    if path.parent.name == "hostile" and "oversized" in path.name:
        with pytest.raises(LaunchRejected):
            validate_launch(launch, ex)
        return
    validate_launch(launch if launch is not None else ex.launch_defaults.as_request(), ex)


@pytest.mark.parametrize("ex_id", EXERCISES)
def test_reference_files_match_spec_launches(ex_id):
    ex = load_exercise(ex_id)
    for name, ref in ex.references.items():
        assert launch_of(ex.folder / ref.file) == ref.launch.as_request(), name


def test_hostile_kernels_declare_expected_verdicts():
    files = cu_files("gemm", "hostile")
    names = {p.stem for p in files}
    assert {"hang", "oob_write", "trap", "printf_flood", "malloc_bomb", "oversized_launch",
            "replay_cache", "warm_then_lazy", "input_mutation"} <= names
    for p in files:
        assert expected_verdict(p) in {"TIME_LIMIT", "TOO_SLOW", "RUNTIME_ERROR", "WRONG_ANSWER", "PASSED"}


def test_no_exercise_folder_holds_stray_files():
    for ex in EXERCISES:
        for p in (KERNELS / ex).rglob("*"):
            if p.is_file() and "__pycache__" not in p.parts:
                assert p.suffix in (".cu", ".py", ".yaml"), p
