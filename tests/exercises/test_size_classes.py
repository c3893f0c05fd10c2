"""Correctness sizes by alignment class: every class in a spec's size_classes
catches a committed wrong solution in solutions/wrong/ (its ``// catches:`` line), shown on the CPU
with a numpy emulation of that kernel against reference.check at the exercise's own sizes. The
GPU tests grade the .cu files themselves (every wrong solution must get WRONG_ANSWER)."""
from __future__ import annotations

import re

import numpy as np
import pytest
import yaml

from kernels.engine import load_exercise

from .helpers import KERNELS, load_reference

F32 = np.float32
CATCHES_RE = re.compile(r"^//\s*catches:\s*(.+)$", re.M)


def _gemm(i):
    return (i["A"] @ i["B"]).astype(F32)


def _k_prefix(i, used):
    return (i["A"][:, :used] @ i["B"][:used]).astype(F32)


def _nan_cols(out, cols):
    out = out.copy()
    out[..., cols] = np.nan
    return out


GEMM = {
    "vec4_ragged_tail": lambda i, s: _nan_cols(_gemm(i), slice(s["N"] // 64 * 64, None))
    if s["N"] % 4 == 0 and s["K"] % 4 == 0 else _gemm(i),
    "last_whole_k_tile": lambda i, s: _k_prefix(i, s["K"] - 64) if s["K"] % 64 == 0 and s["K"] >= 64 else _gemm(i),
    "tile_count_off_by_one": lambda i, s: _k_prefix(i, min(s["K"], (s["K"] + 30) // 32 * 32)),
    "degenerate_dims": lambda i, s: np.full((s["M"], s["N"]), np.nan, F32) if 1 in (s["M"], s["N"], s["K"]) else _gemm(i),
    "pairs_drop_odd_tail": lambda i, s: _nan_cols(_gemm(i), [s["N"] - 1]) if s["N"] % 2 else _gemm(i),
    "k_capped": lambda i, s: _k_prefix(i, min(s["K"], 512)),
}


def _colsum(x, rows=None):
    x = x if rows is None else x[:rows]
    return x.sum(axis=0, dtype=F32)


COL_SUM = {
    "vec4_ragged_tail": lambda i, s: _nan_cols(_colsum(i["X"]), slice(s["cols"] // 64 * 64, None))
    if s["cols"] % 4 == 0 else _colsum(i["X"]),
    "rows_capped": lambda i, s: _colsum(i["X"], min(s["rows"], 4096)),
    "degenerate_dims": lambda i, s: np.full(s["cols"], np.nan, F32) if 1 in (s["rows"], s["cols"]) else _colsum(i["X"]),
    "last_whole_row_tile": lambda i, s: _colsum(i["X"], s["rows"] - 64) if s["rows"] % 64 == 0 and s["rows"] >= 64 else _colsum(i["X"]),
    "chunk_count_off_by_one": lambda i, s: _colsum(i["X"], min(s["rows"], (s["rows"] + 30) // 32 * 32)),
    "odd_tail": lambda i, s: _nan_cols(_colsum(i["X"]), [s["cols"] - 1]) if s["cols"] % 2 else _colsum(i["X"]),
}

def _on_float32(table):
    """hgemm's inputs are float16: the same emulations, on the inputs widened to float32 (exact)."""
    def widen(f):
        return lambda i, s: f({k: v.astype(F32) for k, v in i.items()}, s)
    return {name: widen(f) for name, f in table.items()}


EMULATED = {"gemm": GEMM, "gemm_fast": GEMM, "hgemm": _on_float32(GEMM), "col_sum": COL_SUM}
# gemm_fast has gemm's contract and correctness sizes (test_gemm_fast_shares_gemms_sizes), so its
# class-catching wrong solutions are gemm's files, graded on the GPU under gemm.
WRONG_FOLDER = {"gemm_fast": "gemm"}


def _wrong_dir(ex_id):
    return KERNELS / WRONG_FOLDER.get(ex_id, ex_id) / "solutions" / "wrong"


def test_gemm_fast_shares_gemms_sizes():
    a, b = load_exercise("gemm"), load_exercise("gemm_fast")
    assert [dict(s) for s in a.correctness_sizes] == [dict(s) for s in b.correctness_sizes]
    assert _classes("gemm") == _classes("gemm_fast")


def _classes(ex_id):
    raw = yaml.safe_load((KERNELS / ex_id / "spec.yaml").read_text(encoding="utf-8"))
    return {name: dict(size) for name, size in raw["size_classes"].items()}


def _catching_sizes(ex_id, name):
    ex = load_exercise(ex_id)
    ref = load_reference(ex_id)
    caught = []
    for n, sizes in enumerate(ex.correctness_sizes):
        sizes = dict(sizes)
        inputs = ref.generate_inputs(sizes, np.random.default_rng([11, n]))
        got = np.asarray(EMULATED[ex_id][name](inputs, sizes), dtype=F32)
        if ref.check(got, inputs, sizes, tolerance=dict(ex.tolerance)) is not None:
            caught.append(sizes)
    return caught


CASES = [(ex, name) for ex, table in EMULATED.items() for name in table]


@pytest.mark.parametrize("ex_id,name", CASES)
def test_each_class_catches_its_wrong_solution(ex_id, name):
    path = _wrong_dir(ex_id) / f"{name}.cu"
    match = CATCHES_RE.search(path.read_text(encoding="utf-8"))
    assert match, f"{path} has no '// catches: CLASS' line"
    classes = _classes(ex_id)
    caught = _catching_sizes(ex_id, name)
    for cls in (c.strip() for c in match.group(1).split(",")):
        assert classes[cls] in caught, f"{name}: the {cls} size {classes[cls]} lets it through"


@pytest.mark.parametrize("ex_id", list(EMULATED))
def test_every_class_has_a_wrong_solution(ex_id):
    named = set()
    for path in _wrong_dir(ex_id).glob("*.cu"):
        match = CATCHES_RE.search(path.read_text(encoding="utf-8"))
        if match:
            named |= {c.strip() for c in match.group(1).split(",")}
    assert named == set(_classes(ex_id)), set(_classes(ex_id)) - named


@pytest.mark.parametrize("ex_id", list(EMULATED))
def test_a_vectorised_path_wrong_only_at_ragged_aligned_sizes_needs_the_mod4_class(ex_id):
    """The issue's case: before the mod4/mod8 sizes, this kernel passed every correctness size."""
    classes = _classes(ex_id)
    caught = _catching_sizes(ex_id, "vec4_ragged_tail")
    assert caught and all(size in (classes["mod4"], classes["mod8"]) for size in caught), caught
