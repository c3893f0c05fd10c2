"""Exercise specs: kernels/<id>/spec.yaml (contract B) loaded into frozen dataclasses.

Every validation error names the file and the key path (e.g. ``kernels/gemm/spec.yaml:
kernel.params[2].type: ...``) so an instructor can fix a spec without reading this code.
The parsed YAML is kept as ``Exercise.raw`` for anything the dataclasses do not model
(``tolerance`` is interpreted by the exercise's own reference.py).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import yaml

KERNELS_ROOT = Path(__file__).resolve().parent.parent  # the kernels/ folder

ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A C type as written in a spec: optional const, a base type of one or more words, pointer stars.
TYPE_RE = re.compile(r"^(const\s+)?[A-Za-z_][A-Za-z0-9_]*(\s+[A-Za-z_][A-Za-z0-9_]*)*\s*\**$")
ROLES = ("input", "output", "size", "scalar")
TIER_AGAINST = ("naive", "tiled", "baseline")
NOT_EXERCISES = {"engine", "results", "ladder", "__pycache__"}


class ExerciseSpecError(ValueError):
    """A spec.yaml problem; ``str()`` reads ``<file>: <key>: <problem>``."""

    def __init__(self, file: str | Path, key: str, problem: str):
        self.file, self.key, self.problem = str(file), key, problem
        super().__init__(f"{file}: {key or '<top>'}: {problem}")


class UnknownExercise(LookupError):
    pass


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # e.g. "const float*", "float*", "int"
    role: str  # input | output | size | scalar
    shape: tuple[str, ...] | None = None

    @property
    def is_pointer(self) -> bool:
        return self.type.rstrip().endswith("*")

    @property
    def base_type(self) -> str:
        """The type without a leading ``const`` (used for the const/non-const input check)."""
        t = re.sub(r"^const\s+", "", self.type.strip())
        return re.sub(r"\s*\*", "*", t)


@dataclass(frozen=True)
class KernelSpec:
    name: str
    params: tuple[Param, ...]

    @property
    def size_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.role == "size")

    def declaration(self) -> str:
        """The declaration learners must write, e.g. ``extern "C" __global__ void gemm(...)``."""
        args = ", ".join(f"{p.type} {p.name}".replace("* ", "* ") for p in self.params)
        return f'extern "C" __global__ void {self.name}({args})'


@dataclass(frozen=True)
class LaunchSpec:
    block: tuple[int, int, int]
    tile: tuple[int, int]
    smem: int = 0

    def as_request(self) -> dict[str, Any]:
        return {"block": list(self.block), "tile": list(self.tile), "smem": self.smem}


@dataclass(frozen=True)
class OutputGrid:
    rows: str | int  # a size name or a constant (1 for a row vector)
    cols: str | int

    def extent(self, sizes: Mapping[str, int]) -> tuple[int, int]:
        def val(v: str | int) -> int:
            return v if isinstance(v, int) else int(sizes[v])

        return val(self.rows), val(self.cols)


@dataclass(frozen=True)
class ReferenceKernel:
    file: str
    launch: LaunchSpec


@dataclass(frozen=True)
class Tier:
    id: str
    against: str
    speedup: float
    xp: int


@dataclass(frozen=True)
class Work:
    metric: str  # "TFLOP/s" | "GB/s"
    expr: str  # e.g. "2*M*N*K" (flops) or "4*(rows*cols + cols)" (bytes)

    def amount(self, sizes: Mapping[str, int]) -> float:
        return float(_eval_expr(self.expr, sizes))


@dataclass(frozen=True)
class Exercise:
    id: str
    title: Mapping[str, str]
    kernel: KernelSpec
    output_grid: OutputGrid
    launch_defaults: LaunchSpec
    references: Mapping[str, ReferenceKernel]
    correctness_sizes: tuple[Mapping[str, int], ...]
    timing_sizes: tuple[Mapping[str, int], ...]
    tolerance: Mapping[str, Any]
    work: Work
    baseline: str
    pass_xp: int
    tiers: tuple[Tier, ...]
    headers: tuple[str, ...] = ()  # allowed headers the engine includes for this exercise
    folder: Path = field(default=Path("."), compare=False)
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def path(self, name: str) -> Path:
        return self.folder / name

    @property
    def starter_path(self) -> Path:
        return self.folder / "starter.cu"

    def solution_files(self, kind: str) -> list[Path]:
        """kind = "correct" | "wrong"."""
        return sorted((self.folder / "solutions" / kind).glob("*.cu"))

    @property
    def largest_timing_size(self) -> Mapping[str, int]:
        return self.timing_sizes[-1] if self.timing_sizes else self.correctness_sizes[-1]


# ---- loading -----------------------------------------------------------------------------

def list_exercises(root: str | Path | None = None) -> list[str]:
    """Ids of every folder under kernels/ that holds a spec.yaml, sorted."""
    base = Path(root) if root else KERNELS_ROOT
    if not base.is_dir():
        return []
    return sorted(
        d.name for d in base.iterdir()
        if d.is_dir() and d.name not in NOT_EXERCISES and (d / "spec.yaml").is_file()
    )


# One entry per spec file: its (mtime, size) when parsed and the Exercise. An edited spec replaces
# its entry, so the cache holds at most one Exercise per file, however often specs are edited.
_cache: dict[str, tuple[tuple[int, int], Exercise]] = {}


def load_exercise(exercise_id: str, root: str | Path | None = None) -> Exercise:
    """Load and validate kernels/<id>/spec.yaml (cached until the file changes)."""
    if not isinstance(exercise_id, str) or not ID_RE.match(exercise_id):
        raise UnknownExercise(exercise_id)
    base = Path(root) if root else KERNELS_ROOT
    spec_path = base / exercise_id / "spec.yaml"
    try:
        stat = spec_path.stat()
    except FileNotFoundError:
        raise UnknownExercise(exercise_id) from None
    version = (stat.st_mtime_ns, stat.st_size)
    cached = _cache.get(str(spec_path))
    if cached is not None and cached[0] == version:
        return cached[1]
    exercise = parse_spec_file(spec_path)
    _cache[str(spec_path)] = (version, exercise)
    return exercise


def parse_spec_file(spec_path: str | Path) -> Exercise:
    spec_path = Path(spec_path)
    try:
        raw = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ExerciseSpecError(spec_path, "", f"not valid YAML ({exc.__class__.__name__})") from exc
    return parse_spec(raw, spec_path)


def parse_spec(raw: Any, spec_path: str | Path) -> Exercise:
    v = _Validator(spec_path)
    top = v.mapping(raw, "")
    ex_id = v.string(top, "id", pattern=ID_RE)
    folder = Path(spec_path).parent
    if folder.name != ex_id and folder.name not in ("", "."):
        v.fail("id", f"must equal the folder name {folder.name!r}")

    title_raw = v.mapping(v.get(top, "title"), "title")
    title = {lang: v.string(title_raw, lang, prefix="title.") for lang in ("en", "ko")}

    kernel = _parse_kernel(v, v.mapping(v.get(top, "kernel"), "kernel"))
    size_names = kernel.size_names

    og = v.mapping(v.get(top, "output_grid"), "output_grid")
    output_grid = OutputGrid(
        rows=_grid_dim(v, og, "rows", size_names), cols=_grid_dim(v, og, "cols", size_names)
    )
    launch_defaults = _parse_launch(v, v.get(top, "launch_defaults"), "launch_defaults")

    refs_raw = v.mapping(v.get(top, "references"), "references")
    references: dict[str, ReferenceKernel] = {}
    for name in ("naive", "tiled"):
        if name not in refs_raw:
            v.fail(f"references.{name}", "is required")
    for name, ref in refs_raw.items():
        key = f"references.{name}"
        ref = v.mapping(ref, key)
        file = v.string(ref, "file", prefix=key + ".")
        if "/" in file or "\\" in file or not file.endswith(".cu"):
            v.fail(key + ".file", "must be a .cu file name inside the exercise folder")
        references[str(name)] = ReferenceKernel(file=file, launch=_parse_launch(v, v.get(ref, "launch", key + "."), key + ".launch"))

    sizes_raw = v.mapping(v.get(top, "sizes"), "sizes")
    correctness = _parse_sizes(v, sizes_raw, "correctness", size_names, required=True)
    timing = _parse_sizes(v, sizes_raw, "timing", size_names, required=False)

    tolerance = v.mapping(v.get(top, "tolerance"), "tolerance")

    work_raw = v.mapping(v.get(top, "work"), "work")
    work = Work(metric=v.string(work_raw, "metric", prefix="work."),
                expr=v.string(work_raw, "expr", prefix="work."))
    try:
        for s in correctness + timing:
            if work.amount(s) <= 0:
                v.fail("work.expr", f"is not positive for size {dict(s)}")
    except (ValueError, KeyError, ZeroDivisionError) as exc:
        v.fail("work.expr", f"cannot be evaluated: {exc}")

    baseline = v.string(top, "baseline")

    xp_raw = v.mapping(v.get(top, "xp"), "xp")
    pass_xp = v.integer(xp_raw, "pass", prefix="xp.", minimum=0)
    tiers = []
    tiers_raw = xp_raw.get("tiers", []) or []
    if not isinstance(tiers_raw, list):
        v.fail("xp.tiers", "must be a list")
    seen = set()
    for i, t in enumerate(tiers_raw):
        key = f"xp.tiers[{i}]"
        t = v.mapping(t, key)
        tid = v.string(t, "id", prefix=key + ".", pattern=ID_RE)
        if tid in seen:
            v.fail(key + ".id", f"duplicate tier id {tid!r}")
        seen.add(tid)
        against = v.string(t, "against", prefix=key + ".")
        if against not in TIER_AGAINST:
            v.fail(key + ".against", f"must be one of {list(TIER_AGAINST)}")
        tiers.append(Tier(id=tid, against=against,
                          speedup=v.number(t, "speedup", prefix=key + ".", positive=True),
                          xp=v.integer(t, "xp", prefix=key + ".", minimum=0)))

    from . import headers as _headers  # local: headers imports nothing heavy, avoids cycles

    hdrs = top.get("headers", []) or []
    if not isinstance(hdrs, list) or not all(isinstance(h, str) for h in hdrs):
        v.fail("headers", "must be a list of header names")
    for i, h in enumerate(hdrs):
        if h not in _headers.ALLOWED_HEADERS:
            v.fail(f"headers[{i}]", f"{h!r} is not in the engine's allowed list {list(_headers.ALLOWED_HEADERS)}")

    return Exercise(
        id=ex_id, title=title, kernel=kernel, output_grid=output_grid,
        launch_defaults=launch_defaults, references=references,
        correctness_sizes=correctness, timing_sizes=timing, tolerance=tolerance, work=work,
        baseline=baseline, pass_xp=pass_xp, tiers=tuple(tiers), headers=tuple(hdrs),
        folder=folder, raw=raw,
    )


def _parse_kernel(v: _Validator, k: dict[str, Any]) -> KernelSpec:
    name = v.string(k, "name", prefix="kernel.", pattern=IDENT_RE)
    params_raw = v.get(k, "params", "kernel.")
    if not isinstance(params_raw, list) or not params_raw:
        v.fail("kernel.params", "must be a non-empty list")
    params = []
    names = set()
    for i, p in enumerate(params_raw):
        key = f"kernel.params[{i}]"
        p = v.mapping(p, key)
        pname = v.string(p, "name", prefix=key + ".", pattern=IDENT_RE)
        if pname in names:
            v.fail(key + ".name", f"duplicate parameter name {pname!r}")
        names.add(pname)
        ptype = " ".join(v.string(p, "type", prefix=key + ".").split())
        if not TYPE_RE.match(ptype):
            v.fail(key + ".type", f"{ptype!r} is not a plain C type")
        role = v.string(p, "role", prefix=key + ".")
        if role not in ROLES:
            v.fail(key + ".role", f"must be one of {list(ROLES)}")
        pointer = ptype.endswith("*")
        if role in ("input", "output") and not pointer:
            v.fail(key + ".type", f"an {role} must be a pointer type")
        if role == "output" and ptype.startswith("const"):
            v.fail(key + ".type", "an output cannot be const")
        if role in ("size", "scalar") and pointer:
            v.fail(key + ".type", f"a {role} must not be a pointer")
        shape = p.get("shape")
        if shape is not None:
            if not isinstance(shape, list) or not all(isinstance(s, (str, int)) for s in shape):
                v.fail(key + ".shape", "must be a list of size names or integers")
            shape = tuple(str(s) for s in shape)
        params.append(Param(name=pname, type=ptype, role=role, shape=shape))
    if not any(p.role == "output" for p in params):
        v.fail("kernel.params", "needs at least one output")
    sizes = {p.name for p in params if p.role == "size"}
    for i, p in enumerate(params):
        for s in p.shape or ():
            if not s.isdigit() and s not in sizes:
                v.fail(f"kernel.params[{i}].shape", f"{s!r} is not a size parameter")
    return KernelSpec(name=name, params=tuple(params))


def _grid_dim(v: _Validator, og: dict[str, Any], key: str, size_names: tuple[str, ...]) -> str | int:
    val = v.get(og, key, "output_grid.")
    if isinstance(val, bool) or not isinstance(val, (int, str)):
        v.fail("output_grid." + key, "must be a size name or a positive integer")
    if isinstance(val, int):
        if val < 1:
            v.fail("output_grid." + key, "must be positive")
        return val
    if val not in size_names:
        v.fail("output_grid." + key, f"{val!r} is not one of the size parameters {list(size_names)}")
    return val


def _parse_launch(v: _Validator, raw: Any, key: str) -> LaunchSpec:
    m = v.mapping(raw, key)
    block = v.int_list(m, "block", 3, prefix=key + ".")
    tile = v.int_list(m, "tile", 2, prefix=key + ".")
    smem = m.get("smem", 0)
    if isinstance(smem, bool) or not isinstance(smem, int) or smem < 0:
        v.fail(key + ".smem", "must be a non-negative integer")
    return LaunchSpec(block=tuple(block), tile=tuple(tile), smem=smem)  # type: ignore[arg-type]


def _parse_sizes(v: _Validator, sizes_raw: dict[str, Any], which: str, names: tuple[str, ...],
                 required: bool) -> tuple[dict[str, int], ...]:
    lst = sizes_raw.get(which)
    if lst is None and not required:
        return ()
    if not isinstance(lst, list) or not lst:
        v.fail(f"sizes.{which}", "must be a non-empty list")
    out = []
    for i, s in enumerate(lst):
        key = f"sizes.{which}[{i}]"
        s = v.mapping(s, key)
        if set(s) != set(names):
            v.fail(key, f"keys {sorted(s)} must be exactly the size parameters {sorted(names)}")
        for n in names:
            val = s[n]
            if isinstance(val, bool) or not isinstance(val, int) or val < 1:
                v.fail(f"{key}.{n}", "must be a positive integer")
        out.append({n: int(s[n]) for n in names})
    return tuple(out)


class _Validator:
    def __init__(self, file: str | Path):
        self.file = _display_path(file)

    def fail(self, key: str, problem: str) -> NoReturn:
        raise ExerciseSpecError(self.file, key, problem)

    def mapping(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(key, "must be a mapping")
        return value

    def get(self, m: dict[str, Any], key: str, prefix: str = "") -> Any:
        if key not in m:
            self.fail(prefix + key, "is required")
        return m[key]

    def string(self, m: dict[str, Any], key: str, prefix: str = "", pattern: re.Pattern[str] | None = None) -> str:
        val = self.get(m, key, prefix)
        if not isinstance(val, str) or not val.strip():
            self.fail(prefix + key, "must be a non-empty string")
        if pattern is not None and not pattern.match(val):
            self.fail(prefix + key, f"{val!r} does not match {pattern.pattern}")
        return val

    def integer(self, m: dict[str, Any], key: str, prefix: str = "", minimum: int = 0) -> int:
        val = self.get(m, key, prefix)
        if isinstance(val, bool) or not isinstance(val, int) or val < minimum:
            self.fail(prefix + key, f"must be an integer >= {minimum}")
        return val

    def number(self, m: dict[str, Any], key: str, prefix: str = "", positive: bool = False) -> float:
        val = self.get(m, key, prefix)
        if isinstance(val, bool) or not isinstance(val, (int, float)) or (positive and not val > 0):
            self.fail(prefix + key, "must be a positive number" if positive else "must be a number")
        return float(val)

    def int_list(self, m: dict[str, Any], key: str, n: int, prefix: str = "") -> list[int]:
        val = self.get(m, key, prefix)
        if (not isinstance(val, list) or len(val) != n
                or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in val)):
            self.fail(prefix + key, f"must be a list of {n} positive integers")
        return val


def _display_path(file: str | Path) -> str:
    """Paths relative to the repository when possible (messages stay short and portable)."""
    p = Path(file)
    try:
        return str(p.resolve().relative_to(KERNELS_ROOT.parent))
    except (ValueError, OSError):
        return str(p)


# ---- a tiny, safe arithmetic evaluator for work.expr ------------------------------------

_BINOPS: dict[type[ast.operator], Callable[[float, float], float]] = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
           ast.FloorDiv: lambda a, b: a // b}


def _eval_expr(expr: str, names: Mapping[str, int]) -> float:
    """Evaluate +, -, *, /, //, parentheses, numbers and size names. Nothing else."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"syntax error in {expr!r}") from exc

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ValueError(f"unknown name {node.id!r}")
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise ValueError(f"unsupported element in {expr!r}")

    return ev(tree)
