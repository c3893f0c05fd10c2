"""Every .cu file in the repository compiles with real NVRTC, through the same path a learner's
submission takes (policy, then the sandboxed compile, with the signature check where the file
belongs to an exercise). The lists are globbed, so the test grows as files land.

- kernels/<exercise>/{naive,tiled,starter}.cu and solutions/{correct,wrong}/*.cu: policy +
  compile + signature check (wrong solutions are wrong answers, not compile errors).
- kernels/<exercise>/hostile/*.cu: ``// expect: VERDICT`` and ``// launch: {...}`` headers; here
  (no GPU) grade() must give that verdict, or UNAVAILABLE where only a GPU can tell.
- kernels/ladder/**/*.cu: policy + compile for the ``// arch:`` the file names (default sm_90).
- kernels/engine/**/*.cu, the engine's own kernels (the GPU-side wait before a cuBLAS timing
  window): policy + compile.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kernels.engine import grade
from kernels.engine.compiler import Compiler
from kernels.engine.exercise import KERNELS_ROOT, list_exercises, load_exercise
from kernels.engine.policy import check_source
from kernels.engine.result import Verdict

grade_module = __import__("importlib").import_module("kernels.engine.grade")
REPO = KERNELS_ROOT.parent


def _rel(p: Path) -> str:
    return str(p.relative_to(REPO))


def _exercise_files() -> list[tuple[str, Path]]:
    out = []
    for ex_id in list_exercises():
        folder = KERNELS_ROOT / ex_id
        files = [folder / n for n in ("naive.cu", "tiled.cu", "starter.cu")]
        files += sorted((folder / "solutions").glob("*/*.cu"))
        out += [(ex_id, f) for f in files if f.is_file()]
    return out


EXERCISE_FILES = _exercise_files()
HOSTILE_FILES = [(ex, f) for ex in list_exercises() for f in sorted((KERNELS_ROOT / ex / "hostile").glob("*.cu"))]
LADDER_FILES = sorted((KERNELS_ROOT / "ladder").rglob("*.cu"))
ENGINE_FILES = sorted((KERNELS_ROOT / "engine").rglob("*.cu"))
ALL_FILES = sorted(KERNELS_ROOT.rglob("*.cu"))


def test_every_cu_file_is_covered_by_one_of_the_lists():
    covered = {f for _, f in EXERCISE_FILES} | {f for _, f in HOSTILE_FILES} | set(LADDER_FILES) | set(ENGINE_FILES)
    assert [_rel(f) for f in ALL_FILES if f not in covered] == []


@pytest.mark.skipif(not EXERCISE_FILES, reason="no exercise .cu files under kernels/<id>/ yet")
@pytest.mark.parametrize("exercise_id, path", EXERCISE_FILES, ids=[_rel(f) for _, f in EXERCISE_FILES])
def test_exercise_file_compiles_with_signature_check(compiler, exercise_id, path):
    ex = load_exercise(exercise_id)
    text = check_source(path.read_bytes())  # the policy accepts it
    k = compiler.compile(text, ex.kernel, headers=ex.headers)
    assert k.kernel_name == ex.kernel.name and k.cubin[:4] == b"\x7fELF"


def _header(path: Path, key: str):
    m = re.search(rf"^//\s*{key}:\s*(.+)$", path.read_text(encoding="utf-8"), re.M)
    return m.group(1).strip() if m else None


@pytest.mark.skipif(not HOSTILE_FILES, reason="no hostile .cu files yet")
@pytest.mark.parametrize("exercise_id, path", HOSTILE_FILES, ids=[_rel(f) for _, f in HOSTILE_FILES])
def test_hostile_file_gets_its_verdict_or_needs_a_gpu(compiler, monkeypatch, exercise_id, path):
    monkeypatch.setattr(grade_module, "_gpu_module", lambda: None)
    expect = Verdict(_header(path, "expect"))
    launch_text = _header(path, "launch")
    launch = json.loads(launch_text) if launch_text else None
    result = grade(exercise_id, path.read_bytes(), launch, compiler=compiler)
    if expect in (Verdict.COMPILE_ERROR,):
        assert result.verdict is expect, result.message
    else:
        assert result.verdict in (expect, Verdict.UNAVAILABLE), result.message
    if result.verdict is Verdict.UNAVAILABLE:
        assert result.message.code == "UNAVAILABLE_NO_GPU"


@pytest.mark.skipif(not LADDER_FILES, reason="no kernels/ladder/*.cu files yet")
@pytest.mark.parametrize("path", LADDER_FILES, ids=[_rel(f) for f in LADDER_FILES])
def test_ladder_file_compiles(compiler, path):
    arch = _header(path, "arch") or "sm_90"
    c = compiler if arch == compiler.arch else Compiler(arch, worker=compiler.worker, cache=compiler.cache)
    text = check_source(path.read_bytes())
    k = c.compile(text)
    assert k.cubin[:4] == b"\x7fELF" and k.kernel_name


@pytest.mark.parametrize("path", ENGINE_FILES, ids=[_rel(f) for f in ENGINE_FILES])
def test_engine_kernel_compiles(compiler, path):
    k = compiler.compile(check_source(path.read_bytes()))
    assert k.cubin[:4] == b"\x7fELF" and k.kernel_name == "hold"


def test_there_is_something_to_compile():
    if not ALL_FILES:
        pytest.skip("no .cu files under kernels/ yet")
    assert EXERCISE_FILES or LADDER_FILES
