"""What the insight section costs a job.

    python -m kernels.engine.insight.bench_cost [--n 7]

On any machine: the in-line parts (parsing SASS and PTX, occupancy, roofline, hints) for the
naive, tiled and float4 GEMMs, and the disassembler's own wall time (which grade() overlaps with
the GPU phases). With a GPU: grade() of the tiled GEMM with the section and without it
(``MKC_INSIGHT=off``), interleaved, compile cache warm; the difference of the medians is what a
learner waits longer. Prints the GPU's name and clocks beside the numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
KERNELS = {"naive": "kernels/gemm/naive.cu", "tiled": "kernels/gemm/tiled.cu",
           "float4": "kernels/gemm_fast/solutions/correct/regtile_128x128.cu"}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=7)
    args = ap.parse_args(argv)
    from kernels.engine import load_exercise
    from kernels.engine.compiler import Compiler
    from kernels.engine.compiler.cache import CubinCache
    from kernels.engine.insight import disasm, finish, static_insight
    from kernels.engine.insight.bench_ceilings import clocks

    ex = load_exercise("gemm")
    comp = Compiler(cache=CubinCache(), lineinfo=True)
    print(f"in-line cost per job (ms, median of {args.n}), and nvdisasm's wall time (overlapped with the GPU phases):")
    try:
        for name, rel in KERNELS.items():
            src = (ROOT / rel).read_text()
            c = comp.compile(src, ex.kernel)
            d = disasm.disassemble(c.cubin, sandboxed=c.sandboxed)
            inline, tool = [], []
            for _ in range(args.n):
                t0 = time.perf_counter()
                d = disasm.disassemble(c.cubin, sandboxed=c.sandboxed)
                t1 = time.perf_counter()
                s = static_insight(exercise_id="gemm", cubin=c.cubin, ptx=c.ptx, arch=c.arch, block=(32, 32, 1),
                                   registers=c.resources["registers"], shared_bytes=c.resources["shared_bytes"],
                                   resources=c.resources, source=src, sandboxed=c.sandboxed, disassembly=d)
                finish(s, ex, [{"kernel": "learner", "size": {"M": 2048, "N": 2048, "K": 2048}, "median_ms": 2.0}],
                       None, None)
                t2 = time.perf_counter()
                tool.append((t1 - t0) * 1000)
                inline.append((t2 - t1) * 1000)
            print(f"  {name:7s} {len(s['sass'].get('instructions', [])):5d} instructions  in-line {statistics.median(inline):6.2f} ms"
                  f"  nvdisasm (sandboxed) {statistics.median(tool):6.1f} ms")
    finally:
        comp.close()

    from kernels.engine.gpu import gpu_available

    if not gpu_available():
        print("no GPU here: grade() with and without the section not compared")
        return 0
    import cupy

    from kernels.engine import grade

    props = cupy.cuda.runtime.getDeviceProperties(0)
    print("GPU:", props["name"].decode() if isinstance(props["name"], bytes) else props["name"], clocks())
    src = (ROOT / KERNELS["tiled"]).read_text()
    launch = {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
    grade("gemm", src, launch)  # warm the compile cache and the GPU worker
    walls: dict[str, list[float]] = {"with": [], "without": []}
    for i in range(args.n):
        for mode in (("with", "without") if i % 2 == 0 else ("without", "with")):
            os.environ["MKC_INSIGHT"] = "on" if mode == "with" else "off"
            t0 = time.perf_counter()
            r = grade("gemm", src, launch)
            walls[mode].append((time.perf_counter() - t0) * 1000)
            assert (r.insight is not None) == (mode == "with"), mode
    os.environ.pop("MKC_INSIGHT", None)
    a, b = statistics.median(walls["with"]), statistics.median(walls["without"])
    print(f"grade() wall, tiled gemm, median of {args.n}: with insight {a:.1f} ms, without {b:.1f} ms, "
          f"added {a - b:+.1f} ms ({(a / b - 1) * 100:+.1f} %)")
    print("clocks after:", clocks())
    return 0


if __name__ == "__main__":
    sys.exit(main())
