"""Theoretical occupancy from registers, shared memory and block size.

A transcription of the arithmetic of CUDA's occupancy calculator (``cuda_occupancy.h``,
``cudaOccMaxActiveBlocksPerMultiprocessor`` with the default shared-memory carveout and
partitioned global caching off, as on every GPU since Volta), for the architectures we grade on.
Hand-written because the CUDA occupancy API needs a GPU and the engine places every submission,
GPU or not; a GPU test compares it with ``cudaOccupancyMaxActiveBlocksPerMultiprocessor``.

Besides the resident blocks it says which resource limits them and what would let one more block
in: "48 fewer registers per thread -> 2 blocks per SM".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SmLimits:
    """Per-SM limits of one compute capability (CUDA Programming Guide, "Technical
    Specifications per Compute Capability")."""

    max_threads: int = 2048
    max_blocks: int = 32
    registers: int = 65536
    regs_per_block: int = 65536
    max_regs_per_thread: int = 255
    reg_unit: int = 256  # registers are allocated per warp in units of 256
    sub_partitions: int = 4
    shared_per_sm: int = 228 * 1024
    shared_per_block_optin: int = 227 * 1024
    shared_unit: int = 128
    reserved_shared_per_block: int = 1024
    max_threads_per_block: int = 1024
    warp: int = 32


ARCHES = {
    "sm_80": SmLimits(shared_per_sm=164 * 1024, shared_per_block_optin=163 * 1024),
    "sm_86": SmLimits(max_threads=1536, max_blocks=16, shared_per_sm=100 * 1024,
                      shared_per_block_optin=99 * 1024),
    "sm_89": SmLimits(max_threads=1536, max_blocks=24, shared_per_sm=100 * 1024,
                      shared_per_block_optin=99 * 1024),
    "sm_90": SmLimits(),
}


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


@dataclass
class Limits:
    warps: int
    blocks: int
    registers: int
    shared: int


def block_limits(hw: SmLimits, threads: int, registers: int, shared_bytes: int) -> Limits:
    """Blocks per SM allowed by each resource alone (cuda_occupancy.h's four limits)."""
    big = 1 << 30
    warps_per_block = -(-threads // hw.warp)
    max_warps = hw.max_threads // hw.warp
    by_warps = 0 if threads > hw.max_threads_per_block else max_warps // warps_per_block

    regs_per_warp = _round_up(registers * hw.warp, hw.reg_unit)
    regs_block = regs_per_warp * warps_per_block
    regs_assumed = regs_per_warp * _round_up(warps_per_block, hw.sub_partitions)
    if regs_assumed > hw.regs_per_block or regs_block > hw.regs_per_block or registers > hw.max_regs_per_thread:
        by_regs = 0
    elif regs_per_warp == 0:
        by_regs = big
    else:
        warps_per_sub = (hw.registers // hw.sub_partitions) // regs_per_warp
        by_regs = warps_per_sub * hw.sub_partitions // warps_per_block

    smem = _round_up(shared_bytes + hw.reserved_shared_per_block, hw.shared_unit)
    limit_block = hw.shared_per_block_optin + hw.reserved_shared_per_block
    if smem > limit_block:
        by_shared = 0
    else:
        by_shared = hw.shared_per_sm // smem if smem else big
    return Limits(by_warps, hw.max_blocks, by_regs, by_shared)


@dataclass
class Occupancy:
    arch: str
    threads_per_block: int
    registers: int
    shared_bytes: int  # static + dynamic per block
    blocks_per_sm: int
    warps_per_sm: int
    max_warps_per_sm: int
    occupancy: float  # resident warps / max warps, 0..1
    limited_by: list[str]  # "registers" | "shared" | "warps" | "blocks"
    limits: dict[str, int]
    next_step: dict[str, Any] | None = None  # {"resource", "change", "blocks_per_sm"}

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in (
            "arch", "threads_per_block", "registers", "shared_bytes", "blocks_per_sm", "warps_per_sm",
            "max_warps_per_sm", "occupancy", "limited_by", "limits", "next_step")}


def occupancy(threads: int, registers: int, shared_bytes: int, arch: str = "sm_90") -> Occupancy | None:
    hw = ARCHES.get(arch)
    if hw is None or threads <= 0 or registers < 0 or shared_bytes < 0:
        return None
    lim = block_limits(hw, threads, registers, shared_bytes)
    values = {"warps": lim.warps, "blocks": lim.blocks, "registers": lim.registers, "shared": lim.shared}
    blocks = min(values.values())
    warps_per_block = -(-threads // hw.warp)
    max_warps = hw.max_threads // hw.warp
    limited = [k for k in ("registers", "shared", "warps", "blocks") if values[k] == blocks]
    result = Occupancy(arch, threads, registers, shared_bytes, blocks, blocks * warps_per_block, max_warps,
                       round(blocks * warps_per_block / max_warps, 4), limited,
                       {k: min(v, 1 << 16) for k, v in values.items()})
    result.next_step = _next_step(hw, threads, registers, shared_bytes, blocks, limited)
    return result


def _next_step(hw: SmLimits, threads: int, registers: int, shared: int, blocks: int,
               limited: list[str]) -> dict[str, Any] | None:
    """The smallest change of the limiting resource that lets one more block in, if that alone
    suffices (the other limits allow it)."""
    target = blocks + 1
    others = block_limits(hw, threads, registers, shared)
    if "registers" in limited and min(others.warps, others.blocks, others.shared) >= target:
        for r in range(registers - 1, -1, -1):
            if block_limits(hw, threads, r, shared).registers >= target:
                return {"resource": "registers", "change": registers - r, "blocks_per_sm": target}
    if "shared" in limited and min(others.warps, others.blocks, others.registers) >= target:
        # the largest per-block total that lets `target` blocks in
        per_block = (hw.shared_per_sm // target) // hw.shared_unit * hw.shared_unit - hw.reserved_shared_per_block
        if 0 <= per_block < shared:
            return {"resource": "shared", "change": shared - per_block, "blocks_per_sm": target}
    if "warps" in limited and blocks * threads < hw.max_threads and threads > hw.warp:
        # a smaller block fills the SM's warp slots better
        for t in range(threads - hw.warp, 0, -hw.warp):
            o = block_limits(hw, t, registers, shared)
            if min(o.warps, o.blocks, o.registers, o.shared) * t > blocks * threads:
                return {"resource": "threads", "change": threads - t,
                        "blocks_per_sm": min(o.warps, o.blocks, o.registers, o.shared)}
    return None
