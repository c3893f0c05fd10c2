"""The grading Result: the one object that crosses from the engine to the web app.

Why a hand-written dataclass tree (not pydantic): the engine must import with numpy + cupy +
pyyaml + stdlib only, because it runs on GPU machines that have no web stack.

Rules:
- No prose anywhere. Every human-facing thing is a message code + params; the web app
  translates codes into Korean and English.
- JSON-safe: non-finite floats (NaN, +-Inf, e.g. a learner's wrong output) are written as the
  strings "NaN", "Infinity", "-Infinity" so the JSON stays standard.
- Versioned: ``schema`` is ``SCHEMA_VERSION``. Add optional fields freely (same major);
  renaming/removing a field or changing its meaning bumps the major ("kernels-result/2").

The JSON Schema lives beside this file (result.schema.json) and is produced by
``json_schema()``; a test keeps the two identical.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

SCHEMA_VERSION = "kernels-result/1"


# (str, Enum), not StrEnum: str() and f-strings of a member are part of stored messages and logs;
# StrEnum would change them (UP042).
class Verdict(str, Enum):  # noqa: UP042
    COMPILE_ERROR = "COMPILE_ERROR"
    WRONG_ANSWER = "WRONG_ANSWER"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    TIME_LIMIT = "TIME_LIMIT"
    # Correct at every size, but far slower than the naive kernel: timing stopped (gpu/budget.py).
    # A new value within "kernels-result/1": every earlier result reads as before.
    TOO_SLOW = "TOO_SLOW"
    PASSED = "PASSED"
    # Grading could not happen here (no GPU, no sandbox, engine fault). Not the learner's fault.
    UNAVAILABLE = "UNAVAILABLE"


class Phase(str, Enum):  # noqa: UP042  (as Verdict)
    """Phases reported through ``grade(on_phase=...)`` and timed in ``Result.phases``."""

    VALIDATING = "validating"
    COMPILING = "compiling"
    CHECKING = "checking"
    TIMING = "timing"
    DONE = "done"


Number = int | float | str  # str only for "NaN" / "Infinity" / "-Infinity"


@dataclass
class Message:
    """A translatable message: ``code`` (UPPER_SNAKE, see codes.py) + JSON-safe ``params``."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class Resources:
    """Per-thread / per-block resources of the learner's kernel, from ptxas (-v) output."""

    registers: int | None = None
    shared_bytes: int | None = None  # static shared memory per block
    local_bytes: int | None = None  # stack frame (local memory) per thread
    spill_store_bytes: int | None = None
    spill_load_bytes: int | None = None
    constant_bytes: int | None = None


@dataclass
class Mismatch:
    index: list[int]  # multi-dimensional index into the output, row-major order of dims
    got: Number
    expected: Number


@dataclass
class CorrectnessCase:
    size: dict[str, int]  # e.g. {"M": 17, "N": 17, "K": 17}
    ok: bool
    mismatch: Mismatch | None = None
    message: Message | None = None  # e.g. a runtime error at this size


@dataclass
class Timing:
    kernel: str  # "learner" | "naive" | "tiled" | "baseline"
    size: dict[str, int]
    median_ms: float
    spread_ms: float  # e.g. half the interquartile range; meaning fixed by gpu/timing.py
    work_rate: float | None = None
    unit: str | None = None  # "TFLOP/s" | "GB/s"
    samples: int = 0  # number of timed runs behind the median


@dataclass
class Speedup:
    """Ratio time(against) / time(learner) with a confidence interval."""

    against: str  # "naive" | "tiled" | "baseline" (baseline = context ratio, not a goal)
    size: dict[str, int]
    value: float
    ci_low: float
    ci_high: float
    confidence: float = 0.95


@dataclass
class TierOutcome:
    id: str
    against: str
    threshold: float
    met: bool
    xp: int  # XP this tier is worth (awarded only when met)


@dataclass
class XpAward:
    pass_xp: int = 0
    tier_xp: int = 0
    total: int = 0


@dataclass
class GpuInfo:
    name: str | None = None
    compute_capability: str | None = None
    sm_count: int | None = None
    clock_mhz: int | None = None
    driver: str | None = None
    cuda_runtime: str | None = None
    # which physical card ran the job (e.g. "0000:19:00.0"): on a host with several GPUs, the
    # result says where it ran even though the worker sees its one GPU as device 0
    pci_bus_id: str | None = None


@dataclass
class PhaseTiming:
    name: str  # a Phase value
    ms: float


@dataclass
class LaunchInfo:
    block: list[int]
    tile: list[int]
    smem: int
    grid: list[int] | None = None  # per size the grid differs; this is for the largest size


@dataclass
class Result:
    verdict: Verdict
    message: Message
    exercise: str | None = None
    schema: str = SCHEMA_VERSION
    compile_log: str = ""  # capped, server paths removed, learner's line numbers
    resources: Resources | None = None
    launch: LaunchInfo | None = None
    correctness: list[CorrectnessCase] = field(default_factory=list)
    timings: list[Timing] = field(default_factory=list)
    speedups: list[Speedup] = field(default_factory=list)
    tiers: list[TierOutcome] = field(default_factory=list)
    xp: XpAward = field(default_factory=XpAward)
    flags: list[Message] = field(default_factory=list)  # e.g. IMPLAUSIBLY_FAST
    gpu: GpuInfo | None = None
    versions: dict[str, str] = field(default_factory=dict)  # nvrtc, cupy, engine, arch, ...
    phases: list[PhaseTiming] = field(default_factory=list)
    # How the kernel runs (SASS/PTX by line, occupancy, roofline, hints, counters): a versioned
    # section of its own ("insight/1", insight/schema.py). None in results from before it.
    insight: dict[str, Any] | None = None

    # ---- JSON round trip -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        d = _to_jsonable(self)
        return {"schema": d.pop("schema"), **d}  # version first: easy to spot in a DB row

    def to_json(self, **kwargs: Any) -> str:
        kwargs.setdefault("ensure_ascii", False)
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        # ValueError for anything that is not a Result (callers turn it into "no usable result"):
        # a worker's answer is read here too, and must not fail in any other way.
        if not isinstance(data, dict):
            raise ValueError(f"a result is a JSON object, not {type(data).__name__}")
        schema = data.get("schema", SCHEMA_VERSION)
        if (not isinstance(schema, str) or schema.split("/")[0] != "kernels-result"
                or schema.split("/")[-1] != SCHEMA_VERSION.split("/")[-1]):
            raise ValueError(f"unsupported result schema {schema!r} (expected {SCHEMA_VERSION!r})")
        return _from_dict(cls, data)

    @classmethod
    def from_json(cls, text: str) -> Result:
        return cls.from_dict(json.loads(text))

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASSED


def safe_number(x: Any) -> Number:
    """Numbers for JSON: finite floats stay floats, non-finite become marker strings."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return x
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    return f


def _to_jsonable(obj: Any) -> Any:
    if is_dataclass(obj):
        return {f.name: _to_jsonable(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): _to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_to_jsonable(v) for v in obj]
    if isinstance(obj, float):
        return safe_number(obj)
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    # numpy scalars and the like
    if hasattr(obj, "item"):
        return _to_jsonable(obj.item())
    raise TypeError(f"not JSON-able in a Result: {type(obj).__name__}")


# Which dataclass each nested field holds (explicit: no typing-introspection tricks).
_NESTED: dict[tuple[type, str], tuple[str, type]] = {
    (Result, "message"): ("one", Message),
    (Result, "resources"): ("one", Resources),
    (Result, "launch"): ("one", LaunchInfo),
    (Result, "correctness"): ("list", CorrectnessCase),
    (Result, "timings"): ("list", Timing),
    (Result, "speedups"): ("list", Speedup),
    (Result, "tiers"): ("list", TierOutcome),
    (Result, "xp"): ("one", XpAward),
    (Result, "flags"): ("list", Message),
    (Result, "gpu"): ("one", GpuInfo),
    (Result, "phases"): ("list", PhaseTiming),
    (CorrectnessCase, "mismatch"): ("one", Mismatch),
    (CorrectnessCase, "message"): ("one", Message),
}


_T = TypeVar("_T", bound="DataclassInstance")  # the Result dataclasses


def _from_dict(cls: type[_T], data: dict[str, Any]) -> _T:
    if not isinstance(data, dict):
        raise ValueError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    known = {f.name for f in fields(cls)}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            continue  # forward compatible: a newer minor version may add fields
        how = _NESTED.get((cls, key))
        if how is None or value is None:
            kwargs[key] = value
        elif how[0] == "one":
            kwargs[key] = _from_dict(how[1], value)
        else:
            kwargs[key] = [_from_dict(how[1], v) for v in value]
    if cls is Result:
        kwargs["verdict"] = Verdict(kwargs["verdict"])
    return cls(**kwargs)


# ---- JSON Schema -------------------------------------------------------------------------

def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``Result.to_dict()``; result.schema.json is this."""
    from .insight.schema import insight_schema

    int_or_null = {"type": ["integer", "null"], "minimum": 0}
    number = {"anyOf": [{"type": "number"}, {"enum": ["NaN", "Infinity", "-Infinity"]}]}
    size = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
    code = {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"}
    nn_number = {"type": "number", "minimum": 0}

    def obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
        return {"type": "object", "properties": props, "required": required,
                "additionalProperties": False}

    defs = {
        "message": obj({"code": code, "params": {"type": "object"}}, ["code", "params"]),
        "resources": obj({
            "registers": int_or_null, "shared_bytes": int_or_null, "local_bytes": int_or_null,
            "spill_store_bytes": int_or_null, "spill_load_bytes": int_or_null,
            "constant_bytes": int_or_null,
        }, ["registers", "shared_bytes", "local_bytes"]),
        "mismatch": obj({
            "index": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "got": number, "expected": number,
        }, ["index", "got", "expected"]),
        "correctness_case": obj({
            "size": size, "ok": {"type": "boolean"},
            "mismatch": {"anyOf": [{"$ref": "#/$defs/mismatch"}, {"type": "null"}]},
            "message": {"anyOf": [{"$ref": "#/$defs/message"}, {"type": "null"}]},
        }, ["size", "ok"]),
        "timing": obj({
            "kernel": {"type": "string", "minLength": 1}, "size": size,
            "median_ms": nn_number, "spread_ms": nn_number,
            "work_rate": {"type": ["number", "null"]}, "unit": {"type": ["string", "null"]},
            "samples": {"type": "integer", "minimum": 0},
        }, ["kernel", "size", "median_ms", "spread_ms", "samples"]),
        "speedup": obj({
            "against": {"type": "string", "minLength": 1}, "size": size,
            "value": nn_number, "ci_low": nn_number, "ci_high": nn_number,
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        }, ["against", "size", "value", "ci_low", "ci_high", "confidence"]),
        "tier": obj({
            "id": {"type": "string", "minLength": 1}, "against": {"type": "string"},
            "threshold": {"type": "number"}, "met": {"type": "boolean"},
            "xp": {"type": "integer", "minimum": 0},
        }, ["id", "against", "threshold", "met", "xp"]),
        "xp": obj({
            "pass_xp": {"type": "integer", "minimum": 0},
            "tier_xp": {"type": "integer", "minimum": 0},
            "total": {"type": "integer", "minimum": 0},
        }, ["pass_xp", "tier_xp", "total"]),
        "gpu": obj({
            "name": {"type": ["string", "null"]},
            "compute_capability": {"type": ["string", "null"]},
            "sm_count": int_or_null, "clock_mhz": int_or_null,
            "driver": {"type": ["string", "null"]}, "cuda_runtime": {"type": ["string", "null"]},
            "pci_bus_id": {"type": ["string", "null"]},
        }, []),
        "phase": obj({"name": {"type": "string", "enum": [p.value for p in Phase]},
                      "ms": nn_number}, ["name", "ms"]),
        "launch": obj({
            "block": {"type": "array", "items": {"type": "integer", "minimum": 1},
                      "minItems": 3, "maxItems": 3},
            "tile": {"type": "array", "items": {"type": "integer", "minimum": 1},
                     "minItems": 2, "maxItems": 2},
            "smem": {"type": "integer", "minimum": 0},
            "grid": {"anyOf": [{"type": "array", "items": {"type": "integer", "minimum": 1},
                                "minItems": 3, "maxItems": 3}, {"type": "null"}]},
        }, ["block", "tile", "smem"]),
        "insight": insight_schema(),
    }
    props = {
        "schema": {"const": SCHEMA_VERSION},
        "verdict": {"type": "string", "enum": [v.value for v in Verdict]},
        "message": {"$ref": "#/$defs/message"},
        "exercise": {"type": ["string", "null"]},
        "compile_log": {"type": "string"},
        "resources": {"anyOf": [{"$ref": "#/$defs/resources"}, {"type": "null"}]},
        "launch": {"anyOf": [{"$ref": "#/$defs/launch"}, {"type": "null"}]},
        "correctness": {"type": "array", "items": {"$ref": "#/$defs/correctness_case"}},
        "timings": {"type": "array", "items": {"$ref": "#/$defs/timing"}},
        "speedups": {"type": "array", "items": {"$ref": "#/$defs/speedup"}},
        "tiers": {"type": "array", "items": {"$ref": "#/$defs/tier"}},
        "xp": {"$ref": "#/$defs/xp"},
        "flags": {"type": "array", "items": {"$ref": "#/$defs/message"}},
        "gpu": {"anyOf": [{"$ref": "#/$defs/gpu"}, {"type": "null"}]},
        "versions": {"type": "object", "additionalProperties": {"type": "string"}},
        "phases": {"type": "array", "items": {"$ref": "#/$defs/phase"}},
        "insight": {"anyOf": [{"$ref": "#/$defs/insight"}, {"type": "null"}]},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://matrix-kernels-course/schemas/kernels-result-1.json",
        "title": "Grading result (" + SCHEMA_VERSION + ")",
        "type": "object",
        "properties": props,
        "required": ["schema", "verdict", "message", "compile_log", "correctness", "timings",
                     "speedups", "tiers", "xp", "flags", "versions", "phases"],
        "additionalProperties": False,
        "$defs": defs,
    }


def write_schema_file(path: str | None = None) -> str:
    """Regenerate result.schema.json (run: python -m kernels.engine schema)."""
    import os

    path = path or os.path.join(os.path.dirname(__file__), "result.schema.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(json_schema(), fh, indent=2, sort_keys=False)
        fh.write("\n")
    return path
