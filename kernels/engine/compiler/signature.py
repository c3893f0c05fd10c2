"""The kernel signature check, done by the compiler itself.

We append a few lines after the learner's source (under ``#line 1 "signature_check"``):

    static_assert(same<decltype(gemm), void(const float*, const float*, float*, int, int, int)>
                  || same<decltype(gemm), void(float*, const float*, float*, int, int, int)> || ...)

one alternative per const/non-const choice of the inputs (2^inputs of them), so ``const T*``
and ``T*`` inputs are both fine while any other difference fails. Parameter names are free,
and top-level qualifiers (``const int M``, ``float* __restrict__ C``) are not part of a
function type, so they are fine too.

Then NVRTC is asked for the lowered name of ``gemm`` (a name expression). That fails unless
``gemm`` is a ``__global__`` function, and it returns a mangled name (``_Z4gemm...``) unless the
kernel is ``extern "C"``, which is how the GPU side finds it in the cubin.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from .. import codes
from ..exercise import KernelSpec
from ..headers import epilogue_marker
from .logs import Diagnostic

SIGNATURE_TAG = "MKC_SIGNATURE_MISMATCH"


def _alternatives(kernel: KernelSpec) -> list[str]:
    choices = []
    for p in kernel.params:
        if p.role == "input" and p.is_pointer:
            base = p.base_type  # e.g. "float*"
            choices.append(sorted({"const " + base, base}))
        else:
            choices.append([p.type])
    return ["void(" + ", ".join(combo) + ")" for combo in itertools.product(*choices)]


def check_code(kernel: KernelSpec) -> str:
    """Code appended after the learner's source."""
    name = kernel.name
    alts = " ||\n    ".join(f"__mkc_same<decltype({name}), {a}>::value" for a in _alternatives(kernel))
    return (
        epilogue_marker()
        + "template <class A, class B> struct __mkc_same { static constexpr bool value = false; };\n"
        + "template <class A> struct __mkc_same<A, A> { static constexpr bool value = true; };\n"
        + f"static_assert(\n    {alts},\n    \"{SIGNATURE_TAG}\");\n"
    )


def name_expression(kernel: KernelSpec) -> str:
    return kernel.name


def classify_check_errors(kernel: KernelSpec, errors: Iterable[Diagnostic]) -> tuple[str, dict[str, Any]]:
    """Message code + params for errors that came from the appended check (not learner code)."""
    texts = [e.text for e in errors]
    expected = kernel.declaration()
    base = {"name": kernel.name, "expected": expected}
    joined = "\n".join(texts)
    if f'identifier "{kernel.name}" is undefined' in joined:
        return codes.COMPILE_KERNEL_MISSING, base
    if "non-__global__" in joined:
        return codes.COMPILE_NOT_GLOBAL, base
    # an overloaded or templated name, or a plain type mismatch
    return codes.COMPILE_SIGNATURE_MISMATCH, base


def check_lowered_name(kernel: KernelSpec, lowered: dict[str, str]) -> tuple[str, dict[str, Any]] | None:
    """None when the kernel is extern "C" (its symbol is its plain name)."""
    got = lowered.get(name_expression(kernel))
    if got == kernel.name:
        return None
    return codes.COMPILE_NOT_EXTERN_C, {"name": kernel.name, "expected": kernel.declaration()}
