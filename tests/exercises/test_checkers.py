"""reference.py's check() accepts float32 results computed in other orders and rejects numpy
emulations of the wrong solutions (CPU only, the exercises' own correctness sizes)."""

import numpy as np
import pytest

from kernels.engine import load_exercise

from .helpers import load_reference

F32 = np.float32


def half(x):
    return x.astype(np.float16).astype(F32)


# ---- emulations: name -> f(inputs, sizes) -> float32 output ------------------------------
def sum_emulations(axis, key="X"):
    """axis=0: column sums (col_sum), axis=1: row sums (row_sum)."""

    def seq(x):  # strictly sequential float32 (np.cumsum accumulates in order)
        return np.cumsum(x, axis=axis, dtype=F32).take(-1, axis=axis)

    def rev(x):
        return seq(np.flip(x, axis=axis))

    def blocked(x):  # 8 strided partial sums, then a float32 tree
        n = x.shape[axis]
        parts = [np.take(x, np.arange(i, n, 8), axis=axis).sum(axis=axis, dtype=F32) for i in range(8)]
        while len(parts) > 1:
            parts = [parts[i] + parts[i + 1] if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
        return parts[0].astype(F32)

    correct = {
        "numpy_pairwise": lambda i, s: i[key].sum(axis=axis, dtype=F32),
        "sequential": lambda i, s: seq(i[key]),
        "reversed": lambda i, s: rev(i[key]),
        "strided_tree": lambda i, s: blocked(i[key]),
    }

    def skip(i, s):
        x = i[key]
        n = x.shape[axis]
        return seq(np.take(x, np.arange(n - n // 100), axis=axis))

    def nan_last(i, s):
        out = seq(i[key]).copy()
        if out.size % 2:
            out[-1] = np.nan  # the odd-tail kernels never write it (poison stays)
        return out

    def first_block(i, s, width=32):
        out = seq(i[key]).copy()
        out[width:] = np.nan
        return out

    wrong = {
        "zeros": lambda i, s: np.zeros(i[key].shape[1 - axis], F32),
        "half_inputs": lambda i, s: seq(half(i[key])),
        "skip_1_percent": skip,
        "odd_tail": nan_last,
        "first_block_only": first_block,
    }
    return correct, wrong


def gemm_emulations():
    def seq_k(i, s, reverse=False):
        A, B = i["A"], i["B"]
        acc = np.zeros((A.shape[0], B.shape[1]), F32)
        ks = range(A.shape[1] - 1, -1, -1) if reverse else range(A.shape[1])
        for k in ks:
            acc += A[:, k:k + 1] * B[k:k + 1, :]
        return acc

    def skip(i, s):
        K = i["A"].shape[1]
        used = K - K // 100
        return i["A"][:, :used] @ i["B"][:used]

    def partial_tile(i, s):
        K = i["A"].shape[1]
        used = K // 32 * 32
        return i["A"][:, :used] @ i["B"][:used]

    def first_block(i, s):
        out = (i["A"] @ i["B"]).astype(F32)
        mask = np.full(out.shape, np.nan, F32)
        mask[:32, :32] = 0
        return out + mask

    correct = {
        "numpy_blas_sgemm": lambda i, s: i["A"] @ i["B"],
        "sequential_k": seq_k,
        "reversed_k": lambda i, s: seq_k(i, s, reverse=True),
    }
    wrong = {
        "zeros": lambda i, s: np.zeros((i["A"].shape[0], i["B"].shape[1]), F32),
        "half_inputs": lambda i, s: half(i["A"]) @ half(i["B"]),
        "skip_1_percent": skip,
        "partial_k_tile": partial_tile,
        "first_block_only": first_block,
    }
    return correct, wrong


def hgemm_emulations():
    """float16 A and B (the exercise's inputs): gemm's emulations on the inputs widened to float32
    (exact), less half_inputs (rounding float16 values to float16 changes nothing), plus the
    Tensor Core's own cases."""
    def widen(f):
        return lambda i, s: f({k: v.astype(F32) for k, v in i.items()}, s)

    def blocks_of_16(i, combine):
        # a Tensor Core step: 16 exact products summed, then added to the accumulator by combine()
        A, B = i["A"].astype(np.float64), i["B"].astype(np.float64)
        acc = np.zeros((A.shape[0], B.shape[1]), F32)
        for k0 in range(0, A.shape[1], 16):
            acc = combine(acc, A[:, k0:k0 + 16] @ B[k0:k0 + 16])
        return acc

    def truncated(acc, block):
        # exact sum rounded TOWARDS ZERO to float32: the one-sided rounding of Tensor Cores
        exact = acc.astype(np.float64) + block
        nearest = exact.astype(F32)
        too_far = np.abs(nearest.astype(np.float64)) > np.abs(exact)
        return np.where(too_far, np.nextafter(nearest, F32(0)), nearest)

    def half_acc(acc, block):
        return (acc.astype(np.float64) + block).astype(np.float16).astype(F32)

    gemm_correct, gemm_wrong = gemm_emulations()
    correct = {name: widen(f) for name, f in gemm_correct.items()}
    correct["truncating_steps_of_16"] = lambda i, s: blocks_of_16(i, truncated)
    wrong = {name: widen(f) for name, f in gemm_wrong.items() if name != "half_inputs"}
    wrong["half_accumulate"] = lambda i, s: blocks_of_16(i, half_acc)
    wrong["output_rounded_to_half"] = widen(lambda i, s: (i["A"] @ i["B"]).astype(np.float16).astype(F32))
    return correct, wrong


def transpose_emulations():
    def first_block(i, s):
        out = np.full(i["in"].T.shape, np.nan, F32)
        out[:32, :32] = i["in"].T[:32, :32]
        return out

    def skip(i, s):
        rows = i["in"].shape[0]
        out = np.ascontiguousarray(i["in"].T).copy()
        out[:, rows - rows // 100:] = np.nan
        return out

    def edge(i, s):
        rows, cols = i["in"].shape
        out = np.full((cols, rows), np.nan, F32)
        r32, c32 = rows // 32 * 32, cols // 32 * 32
        out[:c32, :r32] = i["in"].T[:c32, :r32]
        return out

    correct = {"numpy_T": lambda i, s: np.ascontiguousarray(i["in"].T)}
    wrong = {
        "zeros": lambda i, s: np.zeros(i["in"].T.shape, F32),
        "half_values": lambda i, s: half(np.ascontiguousarray(i["in"].T)),
        "skip_1_percent": skip,
        "ragged_edge_tiles": edge,
        "first_block_only": first_block,
    }
    return correct, wrong


EMULATIONS = {
    "col_sum": sum_emulations(0),
    "row_sum": sum_emulations(1),
    "transpose": transpose_emulations(),
    "gemm": gemm_emulations(),
    "gemm_fast": gemm_emulations(),
    "hgemm": hgemm_emulations(),
}


def _cases(ex_id, which):
    return [(ex_id, name) for name in EMULATIONS[ex_id][0 if which == "correct" else 1]]


def _run(ex_id, name, which, seed=7):
    ex = load_exercise(ex_id)
    ref = load_reference(ex_id)
    fn = EMULATIONS[ex_id][0 if which == "correct" else 1][name]
    outcomes = []
    for i, sizes in enumerate(ex.correctness_sizes):
        inputs = ref.generate_inputs(dict(sizes), np.random.default_rng([seed, i]))
        got = np.asarray(fn(inputs, sizes), dtype=F32)
        outcomes.append(ref.check(got, inputs, dict(sizes), tolerance=dict(ex.tolerance)))
    return outcomes


@pytest.mark.parametrize("ex_id,name", [c for e in EMULATIONS for c in _cases(e, "correct")])
def test_other_float32_orders_pass(ex_id, name):
    outcomes = _run(ex_id, name, "correct")
    assert all(o is None for o in outcomes), [o for o in outcomes if o]


@pytest.mark.parametrize("ex_id,name", [c for e in EMULATIONS for c in _cases(e, "wrong")])
def test_wrong_emulations_fail(ex_id, name):
    outcomes = _run(ex_id, name, "wrong")
    assert any(o is not None for o in outcomes), "the checker let a wrong answer through"


@pytest.mark.parametrize("ex_id", list(EMULATIONS))
def test_half_precision_fails_on_most_sizes(ex_id):
    """Not just one lucky size: half precision is far outside tolerance wherever n > 1."""
    name = next(n for n in ("half_inputs", "half_values", "half_accumulate") if n in EMULATIONS[ex_id][1])
    outcomes = _run(ex_id, name, "wrong")
    assert sum(o is not None for o in outcomes) >= len(outcomes) - 1


@pytest.mark.parametrize("ex_id", list(EMULATIONS))
def test_nan_and_inf_never_pass(ex_id):
    ex = load_exercise(ex_id)
    ref = load_reference(ex_id)
    sizes = dict(ex.correctness_sizes[2])
    inputs = ref.generate_inputs(sizes, np.random.default_rng(3))
    good = np.asarray(EMULATIONS[ex_id][0][next(iter(EMULATIONS[ex_id][0]))](inputs, sizes), F32)
    assert ref.check(good, inputs, sizes) is None
    for bad_value in (np.nan, np.inf, -np.inf):
        bad = good.copy().reshape(-1)
        bad[bad.size // 2] = bad_value
        m = ref.check(bad.reshape(good.shape), inputs, sizes)
        assert m is not None and m["got"] != m["got"] or np.isinf(m["got"])


@pytest.mark.parametrize("ex_id", list(EMULATIONS))
def test_first_mismatch_is_reported_with_index(ex_id):
    ex = load_exercise(ex_id)
    ref = load_reference(ex_id)
    sizes = dict(ex.correctness_sizes[3])
    inputs = ref.generate_inputs(sizes, np.random.default_rng(5))
    good = np.asarray(EMULATIONS[ex_id][0][next(iter(EMULATIONS[ex_id][0]))](inputs, sizes), F32)
    bad = good.copy().reshape(-1)
    bad[7] += 1.0
    m = ref.check(bad.reshape(good.shape), inputs, sizes)
    assert m is not None
    flat = np.ravel_multi_index(tuple(m["index"]), good.shape)
    assert flat == 7 and m["got"] == pytest.approx(float(bad[7]))


@pytest.mark.parametrize("ex_id", list(EMULATIONS))
def test_sampled_check_catches_a_wrong_last_element(ex_id):
    """Timed runs are re-checked on a sample that always includes the last row/column."""
    ex = load_exercise(ex_id)
    ref = load_reference(ex_id)
    sizes = dict(max(ex.correctness_sizes, key=lambda s: np.prod(list(s.values()))))
    inputs = ref.generate_inputs(sizes, np.random.default_rng(9))
    good = np.asarray(EMULATIONS[ex_id][0][next(iter(EMULATIONS[ex_id][0]))](inputs, sizes), F32)
    rng = np.random.default_rng(1)
    assert ref.check(good, inputs, sizes, sample=rng) is None
    bad = good.copy().reshape(-1)
    bad[-1] = np.nan
    assert ref.check(bad.reshape(good.shape), inputs, sizes, sample=rng) is not None


@pytest.mark.parametrize("ex_id", list(EMULATIONS))
def test_inputs_are_random_never_zero_in_the_exercises_type(ex_id):
    ex = load_exercise(ex_id)
    ref = load_reference(ex_id)
    sizes = dict(ex.correctness_sizes[1])
    a = ref.generate_inputs(sizes, np.random.default_rng(1))
    b = ref.generate_inputs(sizes, np.random.default_rng(2))
    for k in a:
        assert a[k].dtype == (np.float16 if ex_id == "hgemm" else np.float32) and np.count_nonzero(a[k]) > 0
        assert np.all(np.abs(a[k]) <= 1.0) and not np.array_equal(a[k], b[k])
