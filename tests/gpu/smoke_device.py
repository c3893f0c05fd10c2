"""Quick end-to-end smoke on the GPU machine: one grading with timing, printed in full.

Run: python3 tests/gpu/smoke_device.py   (from the repository root)
"""
import json
import time

from kernels.engine import grade
from kernels.engine.compiler import get_compiler
from kernels.engine.gpu import gpu_available

print("compiler available:", get_compiler().available())
print("gpu_available:", gpu_available())
src = open("kernels/gemm/solutions/correct/regtile_64x64.cu").read()
for _ in range(2):
    t = time.perf_counter()
    r = grade("gemm", src, {"block": [16, 16, 1], "tile": [64, 64], "smem": 0})
    print("turnaround", round(time.perf_counter() - t, 3), r.verdict.value, r.message.code, r.message.params)
print(json.dumps(r.to_dict(), indent=None)[:6000])
