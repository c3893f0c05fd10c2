"""What Nsight Compute profiles: runs INSIDE the GPU sandbox, under ncu, launches the learner's
kernel once on fresh random inputs of one size, and exits.

    python -s -B -m kernels.engine.insight.profile_target JOB_JSON_PATH

JOB: {"cubin_b64", "name", "block", "grid", "smem", "params": [{name, role, shape}], "size",
"folder", "exercise"}. Everything but the cubin comes from the exercise spec and the validated
launch request, never from learner text. Imports numpy + cupy (and the exercise's reference.py).
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import sys


def main(argv: list[str]) -> int:
    import cupy
    import numpy as np

    with open(argv[1], encoding="utf-8") as fh:
        job = json.load(fh)
    spec = importlib.util.spec_from_file_location("_profile_reference", os.path.join(job["folder"], "reference.py"))
    assert spec is not None and spec.loader is not None  # a .py path always has a loader
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    size = {k: int(v) for k, v in job["size"].items()}
    host = ref.generate_inputs(size, np.random.default_rng(19))
    module = cupy.cuda.function.Module()
    module.load(base64.b64decode(job["cubin_b64"]))
    fn = module.get_function(job["name"])
    smem = int(job["smem"])
    if smem > 48 * 1024:
        cupy.cuda.driver.funcSetAttribute(fn.ptr, cupy.cuda.driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem)
    args = []
    for p in job["params"]:
        if p["role"] == "input":
            args.append(cupy.asarray(host[p["name"]]))
        elif p["role"] == "output":
            shape = tuple(int(s) if str(s).isdigit() else size[s] for s in p["shape"])
            args.append(cupy.zeros(shape, dtype=cupy.float32))
        else:
            args.append(np.int32(size[p["name"]]))
    fn(tuple(job["grid"]), tuple(job["block"]), tuple(args), shared_mem=smem)
    cupy.cuda.Device().synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
