"""Measure the grading GPU's roofline ceilings and write
kernels/results/<gpu-slug>-<date>-ceilings.json (read by insight/roofline.py).

    python -m kernels.engine.insight.bench_ceilings [--out DIR] [--repeats N]

- DRAM bandwidth: a float4 grid-stride copy of 1 GiB into another 1 GiB (bytes read + written
  over the time), far beyond the L2.
- FP32 peak: a kernel of 8 independent FFMA chains per thread (no memory traffic in the loop),
  enough blocks to fill every SM several times over: 2 FLOP per FFMA.
- Tensor Core peak: cuBLAS half-precision GEMM (``cupy.matmul`` on float16) at 8192^3; cuBLAS
  SGEMM (float32, no TF32) at the same size is recorded beside it for reference.

Each figure is the best of ``repeats`` timed runs after a warm-up (a ceiling is what the hardware
can reach, so the best run, not the median); CUDA events; SM clocks read through nvidia-smi before
and after. Needs a GPU (cupy).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..gpu.device import smi_query
from .roofline import RESULTS_DIR, slug

COPY = r"""
extern "C" __global__ void copy4(const float4* __restrict__ src, float4* __restrict__ dst, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        dst[i] = src[i];
}
"""

FMA = r"""
extern "C" __global__ void ffma(float* out, int iters, float a, float b) {
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 16; ++j) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
            x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
        }
    }
    float s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
    if (s == 12345.678f) out[0] = s;  // keeps the chains alive; never true for these inputs
}
"""


def _best_ms(fn: Callable[..., object], repeats: int) -> float:  # called with no arguments
    import cupy

    fn()
    cupy.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(repeats):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        best = min(best, cupy.cuda.get_elapsed_time(start, stop))
    return best


def clocks() -> dict[str, str]:
    rows = smi_query(("clocks.sm", "clocks.max.sm", "clocks.mem", "power.draw", "temperature.gpu"))
    if not rows:
        return {}
    first = rows[0]
    return {"sm_mhz": first["clocks.sm"], "sm_max_mhz": first["clocks.max.sm"], "mem_mhz": first["clocks.mem"],
            "power_w": first["power.draw"], "temp_c": first["temperature.gpu"]}


def measure(repeats: int = 20) -> dict[str, Any]:
    import cupy

    dev = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(dev.id)
    sms = int(props["multiProcessorCount"])
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    before = clocks()

    n4 = (1 << 30) // 16  # 1 GiB of float4
    src = cupy.ones(n4 * 4, dtype=cupy.float32)
    dst = cupy.empty_like(src)
    copy = cupy.RawKernel(COPY, "copy4")
    grid = sms * 8
    ms = _best_ms(lambda src=src, dst=dst: copy((grid,), (512,), (src, dst, cupy.int64(n4))), repeats)
    assert bool((dst[:4] == 1).all())
    dram_gbs = 2 * n4 * 16 / (ms / 1000) / 1e9
    del src, dst

    fma = cupy.RawKernel(FMA, "ffma")
    out = cupy.zeros(1, dtype=cupy.float32)
    iters, threads, blocks = 2048, 256, sms * 16
    ms_f = _best_ms(lambda: fma((blocks,), (threads,), (out, cupy.int32(iters), cupy.float32(0.999), cupy.float32(0.001))),
                    repeats)
    fp32_tflops = 2 * 8 * 16 * iters * threads * blocks / (ms_f / 1000) / 1e12

    n = 8192
    a16 = cupy.random.random((n, n)).astype(cupy.float16)
    b16 = cupy.random.random((n, n)).astype(cupy.float16)
    ms_h = _best_ms(lambda a16=a16, b16=b16: cupy.matmul(a16, b16), max(5, repeats // 2))
    del a16, b16
    a32 = cupy.random.random((n, n), dtype=cupy.float32)
    b32 = cupy.random.random((n, n), dtype=cupy.float32)
    ms_s = _best_ms(lambda: cupy.matmul(a32, b32), max(5, repeats // 2))
    flops = 2 * n ** 3
    return {
        "schema": "kernels-results/1", "kind": "ceilings", "date": datetime.date.today().isoformat(),
        "gpu": {"name": name, "compute_capability": f"{props['major']}.{props['minor']}", "sm_count": sms,
                "clock_mhz": int(props.get("clockRate", 0)) // 1000 or None,
                "cuda_runtime": ".".join(str(v) for v in divmod(cupy.cuda.runtime.runtimeGetVersion() // 10, 100)),
                "cupy": cupy.__version__},
        "clocks_before": before, "clocks_after": clocks(),
        "dram_gbs": round(dram_gbs, 1),
        "fp32_tflops": round(fp32_tflops, 2),
        "tensor_tflops": round(flops / (ms_h / 1000) / 1e12, 1),
        "sgemm_tflops": round(flops / (ms_s / 1000) / 1e12, 2),
        "method": {
            "dram_gbs": f"float4 grid-stride copy, 1 GiB read + 1 GiB written, best of {repeats}",
            "fp32_tflops": (f"8 independent FFMA chains x 16 unrolled x {iters} iterations, {blocks} blocks of "
                            f"{threads} threads, 2 FLOP per FFMA"),
            "tensor_tflops": "cuBLAS HGEMM (cupy.matmul float16) 8192^3, best run",
            "sgemm_tflops": "cuBLAS SGEMM (cupy.matmul float32, no TF32) 8192^3, best run",
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(RESULTS_DIR))
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args(argv)
    doc = measure(args.repeats)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{slug(doc['gpu']['name'])}-{doc['date']}-ceilings.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(json.dumps({k: doc[k] for k in ("gpu", "dram_gbs", "fp32_tflops", "tensor_tflops", "sgemm_tflops",
                                          "clocks_before", "clocks_after")}, indent=1))
    print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
