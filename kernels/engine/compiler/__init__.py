"""NVRTC compile of learners' CUDA, in a sandboxed long-lived worker process.

    from kernels.engine.compiler import get_compiler
    compiled = get_compiler().compile(source, exercise.kernel, headers=exercise.headers)

Modules: service (the Compiler), worker_client (the parent side of the worker process),
worker (runs inside the sandbox), nvrtc_compile (the engine's one NVRTC call: the worker runs it
inside the sandbox, gpu/trusted_compile.py and the ladder in process), sandbox (the bubblewrap command
line), signature (the kernel signature check), logs (learner-safe logs, ptxas resources), cache
(cubin cache).
"""

from .sandbox import UNSAFE_ENV, SandboxUnavailable
from .service import CompiledKernel, CompileError, Compiler, get_compiler, nvrtc_version
from .worker_client import CompileWorker, WorkerSettings

__all__ = [
    "CompiledKernel", "CompileError", "Compiler", "CompileWorker", "WorkerSettings",
    "SandboxUnavailable", "UNSAFE_ENV", "get_compiler", "nvrtc_version",
]
