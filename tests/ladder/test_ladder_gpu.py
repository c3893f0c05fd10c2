"""GPU tests: every rung computes C = A·B correctly at awkward sizes (odd, 1, tile ± 1, and sizes
where the vectorised / cp.async paths run on partial tiles), against a float64 reference with the
proven tolerance of kernels/ladder/check.py. Skipped cleanly where there is no GPU."""
from __future__ import annotations

import pytest

from kernels.ladder import rungs as rung_mod


def _gpu_count() -> int:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return 0


pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(_gpu_count() == 0, reason="needs an NVIDIA GPU")]

RUNGS = rung_mod.discover()
ODD_SIZES = [(1, 1, 1), (17, 17, 17), (33, 33, 33), (127, 127, 127), (129, 129, 129), (100, 257, 65)]
# Multiples of 8 (so 16-byte loads and cp.async are taken) that still end in partial tiles.
ALIGNED_SIZES = [(128, 128, 128), (256, 384, 320), (264, 136, 200), (100, 264, 72),
                 (2056, 4104, 72)]   # 17 × 17 tiles of 128×256 > 132 SMs: persistent blocks take several

_loaded: dict[str, object] = {}


def _load(rung):
    from kernels.ladder import runner
    if rung.stem not in _loaded:
        _loaded[rung.stem] = runner.load(rung)
    return _loaded[rung.stem]


@pytest.mark.parametrize("M,N,K", ODD_SIZES + ALIGNED_SIZES)
@pytest.mark.parametrize("stem", [r.stem for r in RUNGS])
def test_rung_is_correct(stem, M, N, K):
    import cupy as cp

    from kernels.ladder import runner
    from kernels.ladder.check import check_gemm

    rung = next(r for r in RUNGS if r.stem == stem)
    kern = _load(rung)
    A, B, A64, B64 = runner.make_inputs(M, N, K, rung.dtype, seed=M * 1_000_003 + N * 1009 + K)
    C = runner.poisoned_output(M, N)
    kern.launch(A, B, C, M, N, K)
    cp.cuda.Device().synchronize()
    res = check_gemm(cp, C, A64, B64, rung.dtype)
    assert res.ok, f"{stem} at M={M} N={N} K={K}: {res.summary()}"


def test_bench_child_measures_a_rung_and_its_baseline():
    from kernels.ladder.bench import run_child
    out = run_child("05_2d_register_tiling", [256], max_seconds=0.05)
    assert all(o["ok"] for o in out["odd"])
    (s,) = out["sizes"]
    assert s["ok"] and s["median_ms"] > 0 and s["baseline_ms"] > 0
    assert out["registers"] > 0 and out["static_smem"] == 8192
