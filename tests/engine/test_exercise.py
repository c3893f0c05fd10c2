"""spec.yaml loading: the real exercises load, and every broken spec names its file and key."""

from __future__ import annotations

import dataclasses
import os

import pytest
import yaml

from kernels.engine.exercise import (
    KERNELS_ROOT,
    ExerciseSpecError,
    UnknownExercise,
    list_exercises,
    load_exercise,
    parse_spec,
)

from .conftest import GEMM_SPEC


def test_fixture_spec_loads(gemm_exercise):
    ex = gemm_exercise
    assert ex.id == "gemm" and ex.title["ko"] == "행렬 곱"
    assert ex.kernel.size_names == ("M", "N", "K")
    assert ex.kernel.declaration() == (
        'extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)')
    assert ex.output_grid.extent({"M": 100, "N": 257, "K": 65}) == (100, 257)
    assert ex.work.amount({"M": 2, "N": 3, "K": 4}) == 48
    assert [t.id for t in ex.tiers] == ["beat_naive", "beat_tiled"]
    assert ex.largest_timing_size == {"M": 2048, "N": 2048, "K": 2048}
    assert ex.raw["baseline"] == "cublas_sgemm"  # the raw dict is kept
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.id = "other"  # frozen


def test_list_exercises_skips_non_exercise_folders(exercises_root):
    (exercises_root / "engine").mkdir()
    (exercises_root / "results").mkdir()
    (exercises_root / "notes").mkdir()  # no spec.yaml
    assert list_exercises(exercises_root) == ["gemm"]


def test_unknown_and_malformed_ids(exercises_root):
    for bad in ("nope", "../gemm", "Gemm", "", None):
        with pytest.raises(UnknownExercise):
            load_exercise(bad, exercises_root)


def _broken(mutate):
    raw = yaml.safe_load(GEMM_SPEC)
    mutate(raw)
    return raw


@pytest.mark.parametrize("mutate, key", [
    (lambda r: r.pop("kernel"), "kernel"),
    (lambda r: r["kernel"]["params"][2].update(type="const float*"), "kernel.params[2].type"),
    (lambda r: r["kernel"]["params"][0].update(role="inout"), "kernel.params[0].role"),
    (lambda r: r["kernel"]["params"][3].update(type="int*"), "kernel.params[3].type"),
    (lambda r: r["kernel"]["params"][1].update(name="A"), "kernel.params[1].name"),
    (lambda r: r["kernel"]["params"][0].update(shape=["M", "Q"]), "kernel.params[0].shape"),
    (lambda r: r["output_grid"].update(rows="R"), "output_grid.rows"),
    (lambda r: r["launch_defaults"].update(block=[32, 32]), "launch_defaults.block"),
    (lambda r: r["references"].pop("tiled"), "references.tiled"),
    (lambda r: r["references"]["naive"].update(file="../../etc/passwd"), "references.naive.file"),
    (lambda r: r["sizes"]["correctness"][1].pop("K"), "sizes.correctness[1]"),
    (lambda r: r["sizes"]["timing"][0].update(M=0), "sizes.timing[0].M"),
    (lambda r: r["work"].update(expr="__import__('os').system('x')"), "work.expr"),
    (lambda r: r["work"].update(expr="2*M*N*Q"), "work.expr"),
    (lambda r: r["xp"]["tiers"][0].update(against="cublas"), "xp.tiers[0].against"),
    (lambda r: r["xp"]["tiers"][1].update(id="beat_naive"), "xp.tiers[1].id"),
    (lambda r: r["xp"].update({"pass": -1}), "xp.pass"),
    (lambda r: r.update(headers=["stdio.h"]), "headers[0]"),
    (lambda r: r.update(id="other"), "id"),
])
def test_broken_spec_names_file_and_key(tmp_path, mutate, key):
    spec = tmp_path / "gemm" / "spec.yaml"
    with pytest.raises(ExerciseSpecError) as info:
        parse_spec(_broken(mutate), spec)
    assert info.value.key == key
    assert str(info.value).startswith(f"{spec}: {key}: ")


def test_yaml_syntax_error_names_file(exercises_root):
    (exercises_root / "gemm" / "spec.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    with pytest.raises(ExerciseSpecError) as info:
        load_exercise("gemm", exercises_root)
    assert "spec.yaml" in str(info.value)


def test_allowed_header_is_accepted(tmp_path):
    ex = parse_spec(_broken(lambda r: r.update(headers=["cuda_fp16.h"])), tmp_path / "gemm" / "spec.yaml")
    assert ex.headers == ("cuda_fp16.h",)


REAL = list_exercises()


@pytest.mark.skipif(not REAL, reason="no exercise folders under kernels/ yet")
@pytest.mark.parametrize("exercise_id", REAL)
def test_real_exercises_load_and_have_their_files(exercise_id):
    ex = load_exercise(exercise_id)
    assert ex.folder == KERNELS_ROOT / exercise_id
    for ref in ex.references.values():
        assert (ex.folder / ref.file).is_file(), ref.file
    assert ex.starter_path.is_file()
    assert ex.solution_files("correct"), "every exercise proves its checker with correct solutions"
    assert ex.solution_files("wrong"), "... and with known-wrong ones"
    for s in ex.correctness_sizes + ex.timing_sizes:
        rows, cols = ex.output_grid.extent(s)
        assert rows >= 1 and cols >= 1
        assert ex.work.amount(s) > 0


def test_an_edited_spec_is_reloaded_and_replaces_its_cache_entry(exercises_root):
    from kernels.engine import exercise as module

    spec = exercises_root / "gemm" / "spec.yaml"
    first = load_exercise("gemm", exercises_root)
    assert load_exercise("gemm", exercises_root) is first  # unchanged file: the parsed Exercise again
    before = len(module._cache)
    for n, title in enumerate(("행렬 곱 2", "행렬 곱 3", "행렬 곱 4")):
        spec.write_text(GEMM_SPEC.replace("행렬 곱", title, 1), encoding="utf-8")
        os.utime(spec, ns=(10**18 + n, 10**18 + n))  # a new mtime even on a coarse-clock filesystem
        assert load_exercise("gemm", exercises_root).title["ko"] == title
    assert len(module._cache) == before  # one entry per spec file, however often it is edited
