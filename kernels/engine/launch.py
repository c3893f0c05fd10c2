"""Launch requests: ``{"block": [x, y, z], "tile": [tx, ty], "smem": bytes}``, checked against
the device limits before anything runs, and turned into a grid per problem size.

Every exercise views its output as rows x cols (spec ``output_grid``); ``tile`` is how many
output columns (tx) and rows (ty) one block covers, so the grid is
``(ceil(cols / tx), ceil(rows / ty), 1)``.

The limits are those of sm_90 (H100/H200); the GPU side may pass the live device's limits.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import codes
from .exercise import Exercise
from .result import safe_number


@dataclass(frozen=True)
class DeviceLimits:
    max_threads_per_block: int = 1024
    max_block: tuple[int, int, int] = (1024, 1024, 64)
    max_grid: tuple[int, int, int] = (2**31 - 1, 65535, 65535)
    # Largest dynamic + static shared memory one block may opt in to (227 KiB on sm_90).
    max_shared_per_block_optin: int = 227 * 1024
    # Without an opt-in, a block gets 48 KiB; the GPU side raises the limit when smem needs it.
    default_shared_per_block: int = 48 * 1024
    max_tile: int = 1 << 20  # keeps grids sane; no real kernel covers a million columns per block


SM90 = DeviceLimits()
KEYS = ("block", "tile", "smem", "profile")  # profile: optional true = also read GPU counters (insight)


class LaunchRejected(ValueError):
    def __init__(self, code: str, **params: Any):
        self.code, self.params = code, params
        super().__init__(f"{code} {params}")


@dataclass(frozen=True)
class LaunchPlan:
    block: tuple[int, int, int]
    tile: tuple[int, int]
    smem: int
    profile: bool = False  # the learner asked for hardware counters ("profile this")

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    def grid(self, exercise: Exercise, sizes: Mapping[str, int]) -> tuple[int, int, int]:
        rows, cols = exercise.output_grid.extent(sizes)
        return (_ceil_div(cols, self.tile[0]), _ceil_div(rows, self.tile[1]), 1)

    def as_dict(self) -> dict[str, Any]:
        return {"block": list(self.block), "tile": list(self.tile), "smem": self.smem}


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _as_int(v: Any) -> int | None:
    """``v`` as an int, or None. JSON has one number type: 256.0 is the integer 256 (JSON Schema says
    so too, and clients that write every number as a double send it), so an integral float counts."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**63:
        return int(v)
    return None


def parse_launch(request: Any, limits: DeviceLimits = SM90) -> LaunchPlan:
    """Check types and device limits that do not depend on the exercise."""
    if isinstance(request, (str, bytes)):
        try:
            request = json.loads(request)
        except (ValueError, UnicodeDecodeError):
            raise LaunchRejected(codes.LAUNCH_NOT_OBJECT) from None
    if not isinstance(request, Mapping):
        raise LaunchRejected(codes.LAUNCH_NOT_OBJECT)
    for key in request:
        if key not in KEYS:
            raise LaunchRejected(codes.LAUNCH_UNKNOWN_KEY, key=str(key)[:32], allowed=list(KEYS))
    for key in ("block", "tile"):
        if key not in request:
            raise LaunchRejected(codes.LAUNCH_MISSING_KEY, key=key)

    block = _int_list(request["block"], "block", 3)
    tile = _int_list(request["tile"], "tile", 2)
    raw_smem = request.get("smem", 0)
    smem = _as_int(raw_smem)
    if smem is None or smem < 0:
        raise LaunchRejected(codes.LAUNCH_SMEM_NOT_INT, value=_safe(raw_smem))
    profile = request.get("profile", False)
    if not isinstance(profile, bool):
        raise LaunchRejected(codes.LAUNCH_PROFILE_NOT_BOOL, value=_safe(profile))

    for axis, (v, lim) in enumerate(zip(block, limits.max_block, strict=True)):
        if v > lim:
            raise LaunchRejected(codes.LAUNCH_BLOCK_DIM_TOO_LARGE, axis="xyz"[axis], value=v, limit=lim)
    threads = block[0] * block[1] * block[2]
    if threads > limits.max_threads_per_block:
        raise LaunchRejected(codes.LAUNCH_TOO_MANY_THREADS, threads=threads, limit=limits.max_threads_per_block)
    for axis, v in enumerate(tile):
        if v > limits.max_tile:
            raise LaunchRejected(codes.LAUNCH_TILE_TOO_LARGE, axis="xy"[axis], value=v, limit=limits.max_tile)
    if smem > limits.max_shared_per_block_optin:
        raise LaunchRejected(codes.LAUNCH_SMEM_TOO_LARGE, smem=smem, limit=limits.max_shared_per_block_optin)
    return LaunchPlan(block=tuple(block), tile=tuple(tile), smem=smem, profile=profile)  # type: ignore[arg-type]


def validate_launch(request: Any, exercise: Exercise, limits: DeviceLimits = SM90) -> LaunchPlan:
    """Full check for one exercise: also every grid of every size it will be run at.

    ``request=None`` means the exercise's launch_defaults.
    """
    if request is None:
        request = exercise.launch_defaults.as_request()
    plan = parse_launch(request, limits)
    for sizes in tuple(exercise.correctness_sizes) + tuple(exercise.timing_sizes):
        grid = plan.grid(exercise, sizes)
        for axis, (v, lim) in enumerate(zip(grid, limits.max_grid, strict=True)):
            if v > lim:
                raise LaunchRejected(codes.LAUNCH_GRID_TOO_LARGE, axis="xyz"[axis], value=v,
                                     limit=lim, size=dict(sizes))
    return plan


def check_shared_total(plan: LaunchPlan, static_shared_bytes: int | None,
                       limits: DeviceLimits = SM90) -> None:
    """After compiling: static (from ptxas) + dynamic shared memory must fit one block."""
    static = static_shared_bytes or 0
    if static + plan.smem > limits.max_shared_per_block_optin:
        raise LaunchRejected(codes.LAUNCH_SMEM_TOTAL_TOO_LARGE, smem=plan.smem, static=static,
                             limit=limits.max_shared_per_block_optin)


def _int_list(value: Any, key: str, n: int) -> list[int]:
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise LaunchRejected(codes.LAUNCH_BAD_SHAPE, key=key, expected_length=n)
    ints = [_as_int(v) for v in value]
    for i, (v, raw) in enumerate(zip(ints, value, strict=True)):
        if v is None or v < 1:
            raise LaunchRejected(codes.LAUNCH_NOT_POSITIVE_INT, key=key, index=i, value=_safe(raw))
    return [v for v in ints if v is not None]


def _safe(v: Any) -> Any:
    """A JSON-safe, short echo of a bad value for the message params."""
    if isinstance(v, float):
        return safe_number(v)
    if v is None or isinstance(v, (bool, int)):
        return v
    return str(v)[:32]
