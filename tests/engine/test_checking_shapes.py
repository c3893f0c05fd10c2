"""The whole-output checkers of kernels/engine/checking.py on shapes that are not square and on timed
runs that check a sample: the bound grows with the summed length K (not M), and a mismatch found in
a sample names its place in the learner's output (not its place in the sample)."""
from __future__ import annotations

import numpy as np

from kernels.engine.checking import check_axis_sums, check_matmul

U32 = 2.0**-24  # float32's unit roundoff


def _matmul(M, K, N, seed=1):
    rng = np.random.default_rng(seed)
    A = (rng.random((M, K)) * 2 - 1).astype(np.float32)
    B = (rng.random((K, N)) * 2 - 1).astype(np.float32)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    abs_sum = np.abs(A.astype(np.float64)) @ np.abs(B.astype(np.float64))
    return {"A": A, "B": B}, ref, abs_sum


def test_the_matmul_bound_uses_the_summed_length_k_not_the_row_count():
    M, K, N = 4, 64, 3
    inputs, ref, abs_sum = _matmul(M, K, N)
    # tol = c * sqrt(K) * u * (|A| @ |B|) + u * |ref|, with c = 1 and sqrt(64) = 8: an error of
    # 6 * u * (|A| @ |B|) is inside it, and would be outside a bound built on sqrt(M) = 2.
    got = ref + 6.0 * U32 * abs_sum
    sizes = {"M": M, "N": N, "K": K}
    assert check_matmul(got, inputs, sizes, tolerance={"c": 1.0}, default_c=3.0, sample_rows=2) is None
    too_far = ref + 9.0 * U32 * abs_sum + 2.0 * U32 * np.abs(ref)
    bad = check_matmul(too_far, inputs, sizes, tolerance={"c": 1.0}, default_c=3.0, sample_rows=2)
    assert bad is not None and bad["index"] == [0, 0]


def test_a_timed_runs_matmul_mismatch_names_the_row_of_the_output():
    M, K, N = 50, 8, 5
    inputs, ref, _ = _matmul(M, K, N)
    got = ref.copy()
    got[49, 2] += 1.0  # the last row is always among the checked ones
    bad = check_matmul(got, inputs, {"M": M, "N": N, "K": K}, sample=np.random.default_rng(7),
                       default_c=3.0, sample_rows=3)
    assert bad is not None
    assert bad["index"] == [49, 2]
    assert np.isclose(bad["got"], ref[49, 2] + 1.0) and np.isclose(bad["expected"], ref[49, 2])


def test_a_timed_runs_axis_sum_mismatch_names_the_output_element():
    rng = np.random.default_rng(3)
    X = (rng.random((6, 40)) * 2 - 1).astype(np.float32)
    got = X.astype(np.float64).sum(axis=0)
    got[39] += 1.0  # the last output is always checked
    bad = check_axis_sums(got, {"X": X}, {"rows": 6, "cols": 40}, sample=np.random.default_rng(5), axis=0,
                          default_c=3.0, sample_count=4)
    assert bad is not None and bad["index"] == [39]


def test_an_untimed_axis_sum_check_sees_every_output():
    rng = np.random.default_rng(4)
    X = (rng.random((5, 7)) * 2 - 1).astype(np.float32)
    got = X.astype(np.float64).sum(axis=1)
    got[2] = np.nan
    bad = check_axis_sums(got, {"X": X}, {"rows": 5, "cols": 7}, axis=1, default_c=3.0, sample_count=1)
    assert bad is not None and bad["index"] == [2] and bad["got"] != bad["got"]  # NaN
