"""The shared pieces of the exercises' checkers (kernels/engine/checking.py), with literal values: what a
mutation run found the end-to-end checker tests did not pin down."""
from __future__ import annotations

import numpy as np

from kernels.engine.checking import (
    first_mismatch,
    out_of_bound,
    sample_indices,
    summation_bound,
    tolerance_c,
    uniform_f32,
)

U32 = 2.0**-24  # float32's unit roundoff


def test_inputs_cover_minus_one_to_one():
    x = uniform_f32(np.random.default_rng(0), (256, 256))
    assert x.dtype == np.float32
    assert -1.0 <= x.min() < -0.99 and 0.99 < x.max() < 1.0


def test_a_specs_c_replaces_the_default():
    assert tolerance_c({"c": 4.0, "why": "deep sums"}, 2.0) == 4.0
    assert tolerance_c({}, 2.0) == 2.0 and tolerance_c(None, 2.0) == 2.0


def test_the_summation_bound_adds_the_rounding_of_the_result():
    bound = summation_bound(2.0, 16, np.array([10.0]), np.array([-3.0]))
    assert np.isclose(bound[0], 2.0 * 4 * U32 * 10.0 + U32 * 3.0, rtol=1e-15, atol=0)


def test_exactly_at_the_bound_passes_and_nan_never_does():
    bad = out_of_bound(np.array([1.5, 1.6, np.nan, np.inf]), np.array([1.0, 1.0, 1.0, 1.0]), np.array([0.5] * 4))
    assert bad.tolist() == [False, True, True, True]


def test_a_timed_run_checks_count_random_rows_plus_the_last():
    rng = np.random.default_rng(1)
    picked = sample_indices(1000, rng, 8)
    assert len(picked) == 9 and picked[-1] == 999 and len(set(picked.tolist())) == 9
    assert sample_indices(10, rng, 9).tolist() == list(range(10))  # too few rows to sample: all of them
    assert sample_indices(12, None, 3).tolist() == list(range(12))  # not a timed run: all of them


def test_the_first_mismatch_names_index_got_and_expected():
    bad = np.array([[False, False], [False, True]])
    got, expected = np.array([[0.0, 0.0], [0.0, 7.0]]), np.array([[0.0, 0.0], [0.0, 2.0]])
    assert first_mismatch(bad, got, expected) == {"index": [1, 1], "got": 7.0, "expected": 2.0}
    assert first_mismatch(bad, got, expected, index_of=lambda pos: [40 + pos[0], pos[1]]) == {
        "index": [41, 1], "got": 7.0, "expected": 2.0}
    assert first_mismatch(np.zeros((2, 2), dtype=bool), got, expected) is None


def test_rechecks_convert_each_b_to_float64_once_and_still_catch_a_wrong_value():
    """Timed rounds are re-checked against a few input arrays many times: B's float64 copy is made
    once per array, and a value one ulp-bound away in a sampled row is still found."""
    import numpy as np

    from kernels.engine import checking
    from kernels.gemm import reference

    sizes = {"M": 64, "N": 48, "K": 32}
    inputs = reference.generate_inputs(sizes, np.random.default_rng(7))
    exact = inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)
    first = checking.float64_of(inputs["B"])
    assert checking.float64_of(inputs["B"])[0] is first[0]  # the same copy, not a new one
    assert np.array_equal(first[0], inputs["B"].astype(np.float64))
    assert np.array_equal(first[1], np.abs(inputs["B"].astype(np.float64)))
    other = inputs["B"].copy()
    assert checking.float64_of(other)[0] is not first[0]  # an equal but distinct array: its own copy
    wrong = exact.astype(np.float32)
    wrong[:, 5] += 0.5  # every row, so any sample of rows holds it
    for seed in range(3):
        found = reference.check(wrong, inputs, sizes, sample=np.random.default_rng(seed))
        assert found is not None and found["index"][1] == 5
        assert reference.check(exact.astype(np.float32), inputs, sizes, sample=np.random.default_rng(seed)) is None
    for _ in range(20):  # the cache stays small whatever passes through it
        checking.float64_of(np.ones((4, 4), dtype=np.float32))
    assert len(checking._FLOAT64_CACHE) <= 8
