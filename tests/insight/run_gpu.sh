#!/usr/bin/env bash
# The insight GPU run (issue 19), as made on the lent machine: ceilings benchmark, GPU tests,
# cost benchmark. Usage from the repository root: OUT=/some/folder bash tests/insight/run_gpu.sh
# (carry .whl: the web stack and bubblewrap are not on the GPU image).
set -o pipefail
OUT=${OUT:-/tmp/insight-out}; mkdir -p "$OUT"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
fi
export PYTHONUNBUFFERED=1 INSIGHT_ARTIFACTS=$OUT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv
echo "ncu: $(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tr '\n' ' ') $(command -v ncu)"
python3 -c "from kernels.engine.insight import disasm, counters; print('nvdisasm', disasm.find_nvdisasm(), disasm.tool_version(disasm.find_nvdisasm() or 'x')); print('ncu', counters.find_ncu())"
python3 -m kernels.engine.insight.bench_ceilings --out "$OUT" --repeats 20 2>&1 | tee "$OUT/ceilings.log"
python3 -m pytest -q -p no:cacheprovider -m gpu tests/insight -s -rA 2>&1 | tee "$OUT/gpu-tests.log"
python3 -m kernels.engine.insight.bench_cost --n 7 2>&1 | tee "$OUT/cost.log"
# If the counters failed in the sandbox, say whether ncu works at all here (diagnosis only).
python3 - <<'PY' 2>&1 | tee "$OUT/ncu-diagnosis.log"
from pathlib import Path
from kernels.engine import load_exercise
from kernels.engine.compiler import get_compiler
from kernels.engine.insight import counters
from kernels.engine.launch import validate_launch
ex = load_exercise("gemm")
c = get_compiler().compile(Path("kernels/gemm/naive.cu").read_text(), ex.kernel)
plan = validate_launch(None, ex)
for sb in (True, False):
    got = counters.collect(ex, c.cubin, c.kernel_name, plan, {"M": 512, "N": 512, "K": 512}, sandboxed=sb, keep_output=True)
    out = got.pop("_output", "")
    print("sandboxed" if sb else "unsandboxed", got.get("available"), got.get("reason"), got.get("metrics"))
    if not got.get("available"):
        print("\n".join(out.splitlines()[-15:]))
PY
