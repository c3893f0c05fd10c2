"""The site with only the GPU run stubbed, for browser tests on machines without a GPU:
``uvicorn --factory tests.e2e.fake_gpu_app:create``. Policy, launch checks and the sandboxed NVRTC
compile are the real engine; the GPU step answers PASSED with every tier met, a measured speedup over
the tiled reference and the GPU's name, as the GPU runner reports them (tests/submissions/conftest.py
stubs the same two functions in-process)."""
from __future__ import annotations

FAKE_GPU = "NVIDIA H100 (fake, tests)"


def fake_result(exercise_id: str):
    from app.bench.fake_gpu import passed_result
    from kernels.engine.result import GpuInfo, Speedup

    result = passed_result(exercise_id)
    size = {"M": 2048, "N": 2048, "K": 2048}
    result.speedups = [Speedup("naive", size, 3.5, 3.3, 3.7), Speedup("tiled", size, 1.9, 1.8, 2.0)]
    result.gpu = GpuInfo(name=FAKE_GPU, compute_capability="9.0")
    return result


def create():
    import kernels.engine.gpu as gpu
    from app.factory import create_app

    def run_job(exercise, compiled, launch_plan, on_phase=None, **_kw):  # kernels.engine.gpu.run_job
        if on_phase:
            on_phase("checking")
            on_phase("timing")
        return fake_result(exercise.id)

    gpu.gpu_available = lambda: True
    gpu.run_job = run_job
    return create_app()
