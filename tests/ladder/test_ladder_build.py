"""CPU tests for the GEMM ladder: every rung parses, compiles with NVRTC for its Hopper target, and
its PTX holds the instruction that defines it — so no rung is a renamed copy of the one before."""
from __future__ import annotations

import re
from functools import cache

import pytest

from kernels.ladder import nvrtc_build  # needs the NVRTC library (a project dependency), not a GPU
from kernels.ladder import rungs as rung_mod

RUNGS = rung_mod.discover()
BY_STEM = {r.stem: r for r in RUNGS}
EXPECTED = [
    "01_naive", "02_coalesced", "03_smem_tiling", "04_1d_thread_tiling", "05_2d_register_tiling",
    "06_vectorized_transposed_a", "07_bank_conflict_free", "08_double_buffering", "09_warp_tiling",
    "10_wmma_tensor_cores", "11_mma_sync_ldmatrix", "12_cp_async_pipeline", "13_wgmma",
    "14_tma_mbarrier", "15_warp_specialized", "16_persistent",
]
F32_SIGNATURE = re.compile(
    r'extern "C" __global__ void\s+(?:__launch_bounds__\([^)]*\)\s+)?'
    r"gemm\(const float\* A, const float\* B, float\* C, int M, int N, int K\)")
F16_SIGNATURE = re.compile(
    r'extern "C" __global__ void\s+(?:__launch_bounds__\([^)]*\)\s+)?'
    r"gemm\(const f16bits\* A, const f16bits\* B, float\* C, int M, int N, int K\)")
# Rungs with a "// tma:" header take the two tensor maps after the exercise's parameters.
TMA_SIGNATURE = re.compile(
    r'extern "C" __global__ void\s+(?:__launch_bounds__\([^)]*\)\s+)?'
    r"gemm\(const f16bits\* A, const f16bits\* B, float\* C, int M, int N, int K,\s*"
    r"const __grid_constant__ TensorMap mapA, const __grid_constant__ TensorMap mapB\)")

TMA_LOAD = r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes"
WGMMA_256 = r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.f16\.f16"
# What each rung must show in its PTX (regexes) and must NOT show (to pin what it is not).
V4_GLOBAL = r"ld\.global(?:\.nc)?\.v4\.(?:f32|u32|b32)"
MARKERS: dict[str, tuple[list[str], list[str]]] = {
    "01_naive": ([r"ld\.global\.f32", r"fma\.rn\.f32"], [r"\.shared", r"bar\.sync"]),
    "02_coalesced": ([r"ld\.global\.f32"], [r"\.shared", r"bar\.sync"]),
    "03_smem_tiling": ([r"\.shared \.align 4 \.b8 \S+\[4096\]", r"bar\.sync", r"ld\.shared\.f32"], [V4_GLOBAL]),
    "04_1d_thread_tiling": ([r"bar\.sync", r"ld\.shared\.f32"], [V4_GLOBAL, r"ld\.shared\.v4"]),
    "05_2d_register_tiling": ([r"ld\.shared\.f32"], [V4_GLOBAL, r"ld\.shared\.v4"]),
    "06_vectorized_transposed_a": ([V4_GLOBAL, r"ld\.shared\.v4\.f32", r"st\.global\.v4\.f32"], []),
    "07_bank_conflict_free": ([V4_GLOBAL, r"ld\.shared\.v4\.f32", r"\[4224\]"], []),   # 8 × (128+4) floats
    "08_double_buffering": ([V4_GLOBAL, r"ld\.shared\.v4\.f32", r"\[8448\]"], []),     # two padded A buffers
    # 09: dynamic shared memory (2 × 16 × (128+4) + 2 × 16 × 256 floats), plain loads, no cp.async.
    "09_warp_tiling": ([V4_GLOBAL, r"ld\.shared\.v4\.f32", r"\.extern \.shared \.align 16 \.b8 smem_f\[\]"], [r"cp\.async"]),
    "10_wmma_tensor_cores": ([r"wmma\.load\.a\.sync", r"wmma\.load\.b\.sync", r"wmma\.mma\.sync",
                              r"wmma\.store\.d\.sync"], [r"mma\.sync\.aligned\.m16n8k16", r"ldmatrix"]),
    "11_mma_sync_ldmatrix": ([r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32",
                              r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16",
                              r"ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16"], [r"cp\.async", r"wmma\."]),
    "12_cp_async_pipeline": ([r"cp\.async\.cg\.shared\.global", r"cp\.async\.wait_group",
                              r"cp\.async\.commit_group", r"mma\.sync\.aligned\.m16n8k16", r"ldmatrix"], [r"wgmma"]),
    "13_wgmma": ([r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.f16\.f16", r"wgmma\.fence",
                  r"wgmma\.commit_group", r"wgmma\.wait_group", r"fence\.proxy\.async\.shared::cta",
                  r"cp\.async\.cg\.shared\.global"], [r"ldmatrix", r"mma\.sync\.aligned\.m16n8k16"]),
    # 14: the copy engine fills the stages (no cp.async), completion counted by mbarriers.
    "14_tma_mbarrier": ([TMA_LOAD, r"mbarrier\.init\.shared::cta\.b64", r"mbarrier\.arrive\.expect_tx\.shared::cta\.b64",
                         r"mbarrier\.try_wait\.parity\.shared::cta\.b64", WGMMA_256, r"wgmma\.wait_group\.sync\.aligned 0",
                         r"bar\.sync"],
                        [r"cp\.async\.cg", r"cp\.async\.wait_group", r"setmaxnreg", r"ldmatrix"]),
    # 15: producer/consumer roles with register hand-over; one wgmma batch kept in flight.
    "15_warp_specialized": ([TMA_LOAD, r"mbarrier\.arrive\.expect_tx", r"mbarrier\.try_wait\.parity",
                             r"setmaxnreg\.dec\.sync\.aligned\.u32 40", r"setmaxnreg\.inc\.sync\.aligned\.u32 232",
                             WGMMA_256, r"wgmma\.wait_group\.sync\.aligned 1"],
                            [r"cp\.async\.cg", r"ldmatrix"]),
    "16_persistent": ([TMA_LOAD, r"mbarrier\.arrive\.expect_tx", r"setmaxnreg\.dec\.sync\.aligned\.u32 40",
                       r"setmaxnreg\.inc\.sync\.aligned\.u32 232", WGMMA_256, r"wgmma\.wait_group\.sync\.aligned 1",
                       r"%nctaid\.x"],        # the tile loop steps by gridDim.x
                      [r"cp\.async\.cg", r"ldmatrix"]),
}
# Minimum number of float32 FMAs in the PTX: thread-level tiling unrolls into many of them.
MIN_FMA = {"04_1d_thread_tiling": 64, "05_2d_register_tiling": 512, "06_vectorized_transposed_a": 512,
           "07_bank_conflict_free": 512, "08_double_buffering": 512, "09_warp_tiling": 1024}
# 09 computes 8×16 outputs per thread instead of 8×8: its unrolled tile has twice 08's FMAs.
FMA_GROWS = [("08_double_buffering", "09_warp_tiling")]


@cache
def built(stem: str) -> nvrtc_build.Built:
    r = BY_STEM[stem]
    return nvrtc_build.build(r.source, r.arch, r.path.name)


def _ptx_body(ptx: str) -> str:
    """PTX without comments and the version/target header, for comparing rungs."""
    lines = [line for line in ptx.splitlines() if line.strip() and not line.lstrip().startswith("//")
             and not line.startswith((".version", ".target", ".address_size"))]
    return "\n".join(lines)


def test_the_whole_ladder_is_there_in_order():
    stems = [r.stem for r in RUNGS]
    assert stems[: len(EXPECTED)] == EXPECTED
    assert [r.number for r in RUNGS] == list(range(1, len(RUNGS) + 1)), "numbers must be consecutive"
    assert set(MARKERS) >= set(stems), "every rung needs its PTX markers in this test"


@pytest.mark.parametrize("stem", [r.stem for r in RUNGS])
def test_header_and_signature(stem):
    r = BY_STEM[stem]
    src = r.source
    assert "#include" not in src
    threads = r.block[0] * r.block[1] * r.block[2]
    assert 32 <= threads <= 1024 and threads % 32 == 0
    assert r.tile[0] > 0 and r.tile[1] > 0
    sig = F32_SIGNATURE if r.dtype == "f32" else TMA_SIGNATURE if r.tma else F16_SIGNATURE
    assert sig.search(src), f"{stem}: kernel signature is not the exercise's"
    if r.number > 1:
        assert "Changed from" in src, f"{stem}: the header must say what changed from the previous rung"
        assert "faster" in src, f"{stem}: the header must say why it should be faster"
    # Dynamic shared memory in the header exactly when the kernel declares it.
    assert (r.smem > 0) == ("extern __shared__" in src)
    if r.arch == "sm_90a":
        assert "wgmma" in src


def test_headers_are_rejected_when_malformed(tmp_path):
    bad = tmp_path / "99_bad.cu"
    bad.write_text("// 99_bad — x\n// launch: block=256 tile=1,1 smem=0\n// dtype: f32\n// arch: sm_90\n")
    with pytest.raises(rung_mod.HeaderError, match="launch"):
        rung_mod.parse_rung(bad)


def test_grid_follows_the_exercise_contract():
    r = BY_STEM["05_2d_register_tiling"]              # tile 128 × 128
    assert r.grid(M=100, N=257) == (3, 1, 1)           # x covers the columns (N), y the rows (M)
    assert BY_STEM["13_wgmma"].grid(M=129, N=256) == (1, 2, 1)


def test_hopper_rung_headers():
    for stem in ("14_tma_mbarrier", "15_warp_specialized", "16_persistent"):
        r = BY_STEM[stem]
        assert r.tma == ((64, 128), (64, 64)), stem      # one 128×64 box of A, 64×64 boxes of B
        assert r.arch == "sm_90a" and r.tile == (256, 128)
    assert not BY_STEM["15_warp_specialized"].persistent
    p = BY_STEM["16_persistent"]
    assert p.persistent
    assert p.grid(M=8192, N=8192, sm_count=132) == (132, 1, 1)   # one block per SM
    assert p.grid(M=129, N=256, sm_count=132) == (2, 1, 1)       # never more blocks than tiles
    with pytest.raises(ValueError):
        p.grid(M=8192, N=8192)


def test_warp_specialized_rungs_hand_registers_to_the_consumers():
    for stem in ("15_warp_specialized", "16_persistent"):
        b = built(stem)
        assert "C7508" not in b.log, f"{stem}: ptxas ignored setmaxnreg"
        assert b.resources.get("registers") == 168, b.resources   # the 65536 / 384 cap that setmaxnreg needs


@pytest.mark.parametrize("stem", [r.stem for r in RUNGS])
def test_compiles_and_shows_its_defining_instructions(stem):
    b = built(stem)
    assert b.cubin, "NVRTC produced no cubin"
    must, must_not = MARKERS[stem]
    for pat in must:
        assert re.search(pat, b.ptx), f"{stem}: PTX lacks {pat!r}"
    for pat in must_not:
        assert not re.search(pat, b.ptx), f"{stem}: PTX unexpectedly has {pat!r}"
    if stem in MIN_FMA:
        n = len(re.findall(r"fma\.rn\.f32", b.ptx))
        assert n >= MIN_FMA[stem], f"{stem}: only {n} fma.rn.f32 in PTX"
    m = re.search(r"Used (\d+) registers", b.log)
    assert m and int(m.group(1)) <= 255
    spill = re.search(r"(\d+) bytes spill stores", b.log)
    assert spill and int(spill.group(1)) <= 16, f"{stem}: register spills ({spill.group(1)} bytes)"


def test_warp_tiling_doubles_the_thread_tile():
    for a, b in FMA_GROWS:
        na = len(re.findall(r"fma\.rn\.f32", built(a).ptx))
        nb = len(re.findall(r"fma\.rn\.f32", built(b).ptx))
        assert nb >= 2 * na, (a, na, b, nb)


@pytest.mark.parametrize("i", range(1, len(RUNGS)))
def test_no_rung_is_a_copy_of_the_previous(i):
    prev, cur = RUNGS[i - 1].stem, RUNGS[i].stem
    assert _ptx_body(built(prev).ptx) != _ptx_body(built(cur).ptx)


def test_rungs_pass_the_graders_source_policy():
    policy = pytest.importorskip("kernels.engine.policy")
    for r in RUNGS:
        policy.check_source(r.source)   # raises SourceRejected if a rung could not be submitted
