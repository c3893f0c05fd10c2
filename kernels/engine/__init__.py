"""The grading engine: exercises, source policy, sandboxed NVRTC compile, grading.

Imports only numpy, cupy, pyyaml and the standard library (never the web stack), so it runs on
GPU machines that have no web stack. cupy itself loads lazily, on the first compile.

Note: ``kernels.engine.grade`` is the function (the submodule of the same name is shadowed on
purpose; import helpers from ``kernels.engine.grade`` via ``importlib`` if ever needed).
"""

from .exercise import Exercise, ExerciseSpecError, UnknownExercise, list_exercises, load_exercise
from .grade import grade
from .result import SCHEMA_VERSION, Result, Verdict

__all__ = [
    "grade", "Result", "Verdict", "SCHEMA_VERSION", "Exercise", "ExerciseSpecError",
    "UnknownExercise", "load_exercise", "list_exercises",
]
