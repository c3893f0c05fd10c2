"""What the exercises' reference.py files share: random inputs, the float32 rounding-error
bound, rejection of NaN and Inf, the sample checked on timed runs and the first-mismatch record.

numpy only. The GPU worker loads each reference.py by file path inside its sandbox; this module
is imported from there like kernels.engine.gpu itself (the worker runs as
``-m kernels.engine.gpu.worker`` with the repository root on PYTHONPATH and kernels/ bound).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

# sizes of one run ({"M": 1024, ...}), the named input arrays, and a first-mismatch record
# ({"index": [...], "got": float, "expected": float}, sent to the parent as JSON)
Sizes = Mapping[str, int]
Inputs = dict[str, np.ndarray]
Mismatch = dict[str, Any]

U32 = 2.0 ** -24  # unit roundoff of float32


def uniform_f32(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    # Uniform in [-1, 1), drawn directly in float32 (fast at 4096 x 4096): zero mean, never all
    # zeros, and no structure a kernel could exploit.
    out: np.ndarray = rng.random(shape, dtype=np.float32) * np.float32(2.0) - np.float32(1.0)
    return out


def tolerance_c(tolerance: Mapping[str, Any] | None, default_c: float) -> float:
    """lambda of the probabilistic bound: the spec's tolerance.c, else the exercise's default."""
    return float((tolerance or {}).get("c", default_c))


def sample_indices(n: int, sample: np.random.Generator | None, count: int) -> np.ndarray:
    """Every index, or on a timed run (``sample`` given) ``count`` random ones plus the last:
    a full float64 reference there would cost more than the kernel."""
    if sample is None or n <= count + 1:
        return np.arange(n)
    return np.unique(np.concatenate([sample.choice(n, count, replace=False), [n - 1]]))


def summation_bound(c: float, n_terms: int, abs_sum: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|float32 result - float64 reference| allowed for sums of n_terms float32 products whose
    absolute values add up to abs_sum: c * sqrt(n) * u * abs_sum + u * |ref| (each spec.yaml
    says why)."""
    bound: np.ndarray = c * np.sqrt(n_terms) * U32 * abs_sum + U32 * np.abs(ref)
    return bound


def out_of_bound(got: np.ndarray, ref: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """Where got is NaN, infinite or farther than tol from ref (got, ref: float64 arrays)."""
    with np.errstate(invalid="ignore"):
        bad: np.ndarray = ~np.isfinite(got) | ~(np.abs(got - ref) <= tol)
        return bad


def first_mismatch(bad: np.ndarray, got: np.ndarray, expected: np.ndarray,
                   index_of: Callable[[tuple[int, ...]], Sequence[Any]] | None = None) -> Mismatch | None:
    """None when nothing is bad, else {"index", "got", "expected"} of the first bad element as
    plain Python numbers. index_of maps a position in ``bad`` to the output's own index
    (the checked elements may be a sample)."""
    if not bad.any():
        return None
    pos = tuple(int(v) for v in np.argwhere(bad)[0])
    index = index_of(pos) if index_of else list(pos)
    return {"index": [int(i) for i in index], "got": float(got[pos]), "expected": float(expected[pos])}


# ---- sums along one axis of a matrix X (col_sum: axis 0, row_sum: axis 1) -----------------

def axis_sum_inputs(sizes: Sizes, rng: np.random.Generator) -> Inputs:
    return {"X": uniform_f32(rng, (sizes["rows"], sizes["cols"]))}


def axis_sum_reference(inputs: Inputs, sizes: Sizes, *, axis: int) -> np.ndarray:
    ref: np.ndarray = inputs["X"].astype(np.float64).sum(axis=axis)
    return ref


def check_axis_sums(got: npt.ArrayLike, inputs: Inputs, sizes: Sizes, *,
                    tolerance: Mapping[str, Any] | None = None,
                    sample: np.random.Generator | None = None, axis: int, default_c: float,
                    sample_count: int) -> Mismatch | None:
    """reference.py's check() for out = X summed along ``axis``: each sum of n terms must be
    within c * sqrt(n) * u * sum|x| + u * |ref|. On timed runs, ``sample_count`` random
    outputs plus the last are checked."""
    c = tolerance_c(tolerance, default_c)
    X = inputs["X"]
    n_terms, n_out = X.shape[axis], X.shape[1 - axis]
    got = np.asarray(got).reshape(n_out)
    idx = sample_indices(n_out, sample, sample_count)
    Xs = np.take(X, idx, axis=1 - axis).astype(np.float64)
    ref = Xs.sum(axis=axis)
    tol = summation_bound(c, n_terms, np.abs(Xs).sum(axis=axis), ref)
    g = got[idx].astype(np.float64)
    return first_mismatch(out_of_bound(g, ref, tol), g, ref, lambda pos: [idx[pos[0]]])


# ---- C = A @ B (gemm, gemm_fast; hgemm with float16 inputs) -----------------------------------------------------------

def matmul_inputs(sizes: Sizes, rng: np.random.Generator) -> Inputs:
    M, N, K = sizes["M"], sizes["N"], sizes["K"]
    return {
        "A": uniform_f32(rng, (M, K)),
        "B": uniform_f32(rng, (K, N)),
    }


def matmul_inputs_f16(sizes: Sizes, rng: np.random.Generator) -> Inputs:
    """hgemm's inputs: the same uniform [-1, 1) values rounded to float16 (what the kernel reads)."""
    return {name: array.astype(np.float16) for name, array in matmul_inputs(sizes, rng).items()}


def matmul_reference(inputs: Inputs, sizes: Sizes) -> np.ndarray:
    ref: np.ndarray = inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)
    return ref


# float64 copies (and their absolute values) of the B matrices that timed rounds are re-checked
# against, by array: a job re-checks several rounds drawn from the same few input arrays, and
# converting B once per round cost more than the product itself (about 40 ms at 2048 x 2048).
# Each entry keeps its array alive, so an id is never reused while cached; a handful of entries
# cover one job (its pool variants at each timing size).
_FLOAT64_CACHE: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
FLOAT64_CACHE_ENTRIES = 8


def _float64_and_abs(array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    as64 = array.astype(np.float64)
    return as64, np.abs(as64)


def float64_of(array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``array`` as float64 and its absolute value, made once per array (inputs are never changed
    on the host: they are the truth the GPU's copies are compared with)."""
    hit = _FLOAT64_CACHE.get(id(array))
    if hit is not None and hit[0] is array:
        return hit[1], hit[2]
    entry = (array, *_float64_and_abs(array))
    while len(_FLOAT64_CACHE) >= FLOAT64_CACHE_ENTRIES:
        _FLOAT64_CACHE.pop(next(iter(_FLOAT64_CACHE)), None)
    _FLOAT64_CACHE[id(array)] = entry
    return entry[1], entry[2]


def check_matmul(got: npt.ArrayLike, inputs: Inputs, sizes: Sizes, *,
                 tolerance: Mapping[str, Any] | None = None,
                 sample: np.random.Generator | None = None, default_c: float,
                 sample_rows: int) -> Mismatch | None:
    """reference.py's check() for C = A @ B: tol_ij = c * sqrt(K) * u * (|A| @ |B|)_ij + u * |ref_ij|.
    On timed runs, ``sample_rows`` random rows plus the last are checked."""
    c = tolerance_c(tolerance, default_c)
    A, B = inputs["A"], inputs["B"]
    M, K = A.shape
    N = B.shape[1]
    got = np.asarray(got).reshape(M, N)
    rows = sample_indices(M, sample, sample_rows)
    A64 = A[rows].astype(np.float64)
    B64, B64_abs = float64_of(B) if sample is not None else _float64_and_abs(B)
    ref = A64 @ B64
    tol = summation_bound(c, K, np.abs(A64) @ B64_abs, ref)
    g = got[rows].astype(np.float64)
    return first_mismatch(out_of_bound(g, ref, tol), g, ref, lambda pos: [rows[pos[0]], pos[1]])
