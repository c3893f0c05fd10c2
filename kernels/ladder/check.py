"""Correctness of a GEMM result against a float64 reference, with a tolerance that is a proof, not a guess.

For C = A·B computed in floating point with unit roundoff u (any summation order, FMA or not), the
classical bound is  |C − A·B| ≤ γ_K · (|A|·|B|)  elementwise,  γ_K = K·u / (1 − K·u)
(Higham, "Accuracy and Stability of Numerical Algorithms", §3.5). The check uses exactly that,
with the reference and |A|·|B| computed in float64 from the very inputs the kernel saw (half
inputs are converted exactly), so a correct kernel can never fail it and an indexing error —
an O(|A|·|B|) error — can never pass it.

  f32 rungs: u = 2^-24 (IEEE float32, round to nearest).
  f16 rungs: the products of two halves are exact in float32 (11+11 significand bits), but Tensor
             Cores add with truncation instead of rounding and align the products of a k-block to
             the largest exponent with only a few guard bits (Fasi, Higham, Mikaitis, Pranesh,
             "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021). Each term can therefore
             lose up to ~2^-22 of the running magnitude instead of 2^-24. We take u = 2^-20: four
             times that, i.e. 16× the float32 bound — still about 10^4 times smaller than the error
             of a single misplaced term at these sizes.
NaN or Inf anywhere fails (the output is poisoned with NaN before each launch, so an element the
kernel never wrote fails too).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

UNIT_ROUNDOFF = {"f32": 2.0 ** -24, "f16": 2.0 ** -20}


def gamma(K: int, dtype: str) -> float:
    ku = K * UNIT_ROUNDOFF[dtype]
    return ku / (1.0 - ku)


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    worst_ratio: float          # max over elements of |C − ref| / (γ_K·(|A||B|) + tiny); ≤ 1 passes
    nonfinite: int              # count of NaN/Inf elements
    first_bad: tuple[int, int, float, float] | None  # (row, col, got, expected) of the worst element when not ok

    def summary(self) -> str:
        if self.ok:
            return f"ok (worst error {self.worst_ratio:.2e} of the bound)"
        if self.nonfinite:
            return f"FAIL: {self.nonfinite} NaN/Inf elements, first at {self.first_bad}"
        return f"FAIL: error {self.worst_ratio:.2e}× the bound at {self.first_bad}"


def check_gemm(xp: Any, C: Any, A64: Any, B64: Any, dtype: str) -> CheckResult:
    """xp is numpy or cupy; A64, B64 are float64 copies of exactly what the kernel read."""
    K = A64.shape[1]
    ref = A64 @ B64
    bound = gamma(max(K, 1), dtype) * (xp.abs(A64) @ xp.abs(B64)) + 1e-300
    C64 = C.astype(xp.float64)
    finite = xp.isfinite(C64)
    nonfinite = int(C64.size - int(finite.sum()))
    ratio = xp.where(finite, xp.abs(C64 - ref) / bound, xp.inf)
    flat = int(ratio.argmax())
    worst = float(ratio.ravel()[flat])
    ok = nonfinite == 0 and worst <= 1.0
    bad = None
    if not ok:
        r, c = divmod(flat, C.shape[1])
        bad = (r, c, float(C64[r, c]), float(ref[r, c]))
    return CheckResult(ok=ok, worst_ratio=worst, nonfinite=nonfinite, first_bad=bad)
