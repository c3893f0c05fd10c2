"""The one list of headers a submission may get, and the prelude the engine prepends.

Learners never write ``#include`` (the policy rejects it in every disguise). An exercise that
needs a header names it in spec.yaml (``headers: [cuda_fp16.h]``); the engine then includes it
from the CUDA header wheel, inside the sandbox, through the prelude below.

Line numbers stay exact: the prelude ends with ``#line 1 "kernel.cu"``, so the compiler itself
reports the learner's own line numbers for the learner's code.
"""

from __future__ import annotations

from collections.abc import Iterable

# Headers an exercise may ask for. All come from the CUDA 13.0 header wheels; nothing else
# on the server is visible to NVRTC inside the sandbox.
# cuda_fp16.h / cuda_bf16.h come from the nvidia-cuda-runtime wheel, mma.h (wmma::) also needs
# nvidia-cuda-crt (its crt/mma.h); both pinned to 13.0.x like NVRTC.
ALLOWED_HEADERS: tuple[str, ...] = (
    "cuda_fp16.h",
    "cuda_bf16.h",
    "mma.h",
)

# The name NVRTC uses for the learner's file in its messages.
SOURCE_NAME = "kernel.cu"
# The name of the code the engine appends (signature check): errors there are ours to explain.
CHECK_NAME = "signature_check"


def prelude(headers: Iterable[str] = ()) -> str:
    """Text put before the learner's source. Ends by resetting the line number to 1."""
    lines = []
    for h in headers:
        if h not in ALLOWED_HEADERS:
            raise ValueError(f"header {h!r} is not allowed")
        lines.append(f"#include <{h}>")
    lines.append(f'#line 1 "{SOURCE_NAME}"')
    return "\n".join(lines) + "\n"


def epilogue_marker() -> str:
    """Put before appended engine code so its diagnostics carry CHECK_NAME, not kernel.cu."""
    return f'\n#line 1 "{CHECK_NAME}"\n'
