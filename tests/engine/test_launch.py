"""Launch requests are checked against sm_90 limits, with one code per kind of mistake."""

from __future__ import annotations

import pytest

from kernels.engine import codes
from kernels.engine.launch import SM90, LaunchRejected, check_shared_total, parse_launch, validate_launch


def test_grid_covers_the_output(gemm_exercise):
    plan = validate_launch({"block": [16, 16, 1], "tile": [64, 32], "smem": 4096}, gemm_exercise)
    assert plan.threads == 256
    # output 100 x 257 (rows x cols): ceil(257/64) = 5 columns of blocks, ceil(100/32) = 4 rows
    assert plan.grid(gemm_exercise, {"M": 100, "N": 257, "K": 65}) == (5, 4, 1)
    assert plan.grid(gemm_exercise, {"M": 1, "N": 1, "K": 1}) == (1, 1, 1)
    assert plan.as_dict() == {"block": [16, 16, 1], "tile": [64, 32], "smem": 4096}


def test_defaults_and_json_text(gemm_exercise):
    assert validate_launch(None, gemm_exercise).block == (32, 32, 1)
    assert validate_launch('{"block": [8, 8, 2], "tile": [8, 8]}', gemm_exercise).smem == 0


def test_vector_output_grid(tmp_path):
    import yaml

    from kernels.engine.exercise import parse_spec

    from .conftest import GEMM_SPEC

    raw = yaml.safe_load(GEMM_SPEC)
    raw["output_grid"] = {"rows": 1, "cols": "N"}
    ex = parse_spec(raw, tmp_path / "gemm" / "spec.yaml")
    plan = validate_launch({"block": [256, 1, 1], "tile": [256, 1]}, ex)
    assert plan.grid(ex, {"M": 7, "N": 1000, "K": 1}) == (4, 1, 1)


@pytest.mark.parametrize("request_, code", [
    ([32, 32, 1], codes.LAUNCH_NOT_OBJECT),
    ("{not json", codes.LAUNCH_NOT_OBJECT),
    ({"block": [1, 1, 1], "tile": [1, 1], "grid": [1, 1, 1]}, codes.LAUNCH_UNKNOWN_KEY),
    ({"tile": [1, 1]}, codes.LAUNCH_MISSING_KEY),
    ({"block": [1, 1, 1]}, codes.LAUNCH_MISSING_KEY),
    ({"block": [32, 32], "tile": [1, 1]}, codes.LAUNCH_BAD_SHAPE),
    ({"block": [1, 1, 1], "tile": [1, 1, 1]}, codes.LAUNCH_BAD_SHAPE),
    ({"block": "32,32,1", "tile": [1, 1]}, codes.LAUNCH_BAD_SHAPE),
    ({"block": [0, 1, 1], "tile": [1, 1]}, codes.LAUNCH_NOT_POSITIVE_INT),
    ({"block": [-32, 1, 1], "tile": [1, 1]}, codes.LAUNCH_NOT_POSITIVE_INT),
    ({"block": [32.5, 1, 1], "tile": [1, 1]}, codes.LAUNCH_NOT_POSITIVE_INT),
    ({"block": [float("inf"), 1, 1], "tile": [1, 1]}, codes.LAUNCH_NOT_POSITIVE_INT),
    ({"block": [True, 1, 1], "tile": [1, 1]}, codes.LAUNCH_NOT_POSITIVE_INT),
    ({"block": [1, 1, 1], "tile": ["32", 1]}, codes.LAUNCH_NOT_POSITIVE_INT),
    ({"block": [1, 1, 1], "tile": [1, 1], "smem": -1}, codes.LAUNCH_SMEM_NOT_INT),
    ({"block": [1, 1, 1], "tile": [1, 1], "smem": 1.5}, codes.LAUNCH_SMEM_NOT_INT),
    ({"block": [1, 1, 1], "tile": [1, 1], "smem": None}, codes.LAUNCH_SMEM_NOT_INT),
    ({"block": [2048, 1, 1], "tile": [1, 1]}, codes.LAUNCH_BLOCK_DIM_TOO_LARGE),
    ({"block": [1, 1, 65], "tile": [1, 1]}, codes.LAUNCH_BLOCK_DIM_TOO_LARGE),
    ({"block": [64, 32, 1], "tile": [64, 32]}, codes.LAUNCH_TOO_MANY_THREADS),
    ({"block": [32, 32, 2], "tile": [1, 1]}, codes.LAUNCH_TOO_MANY_THREADS),
    ({"block": [1, 1, 1], "tile": [1, 1], "smem": 227 * 1024 + 1}, codes.LAUNCH_SMEM_TOO_LARGE),
    ({"block": [1, 1, 1], "tile": [1 << 21, 1]}, codes.LAUNCH_TILE_TOO_LARGE),
])
def test_each_mistake_has_its_code(gemm_exercise, request_, code):
    with pytest.raises(LaunchRejected) as info:
        validate_launch(request_, gemm_exercise)
    assert info.value.code == code
    import json
    json.dumps(info.value.params, allow_nan=False)  # params are JSON-safe


def test_an_integral_float_is_the_integer(gemm_exercise):
    # JSON has one number type: a client that writes every number as a double sends 32.0 for 32
    plan = validate_launch({"block": [32.0, 8.0, 1], "tile": [32, 32.0], "smem": 1024.0}, gemm_exercise)
    assert plan.block == (32, 8, 1) and plan.tile == (32, 32) and plan.smem == 1024
    assert all(type(v) is int for v in (*plan.block, *plan.tile, plan.smem))


def test_limits_are_inclusive(gemm_exercise):
    validate_launch({"block": [1024, 1, 1], "tile": [1024, 1]}, gemm_exercise)
    validate_launch({"block": [1, 1, 64], "tile": [1, 1]}, gemm_exercise)
    validate_launch({"block": [1, 1, 1], "tile": [1, 1], "smem": 227 * 1024}, gemm_exercise)


def test_grid_y_limit_checked_for_every_size(gemm_exercise):
    # tile rows of 1 over M = 2048 is fine (grid.y = 2048); a tiny device limit is not
    from dataclasses import replace
    small = replace(SM90, max_grid=(2**31 - 1, 1000, 65535))
    with pytest.raises(LaunchRejected) as info:
        validate_launch({"block": [32, 1, 1], "tile": [32, 1]}, gemm_exercise, small)
    assert info.value.code == codes.LAUNCH_GRID_TOO_LARGE
    assert info.value.params["size"] == {"M": 1024, "N": 1024, "K": 1024}


def test_static_plus_dynamic_shared_memory():
    plan = parse_launch({"block": [1, 1, 1], "tile": [1, 1], "smem": 200 * 1024})
    check_shared_total(plan, 27 * 1024)
    with pytest.raises(LaunchRejected) as info:
        check_shared_total(plan, 28 * 1024)
    assert info.value.code == codes.LAUNCH_SMEM_TOTAL_TOO_LARGE
