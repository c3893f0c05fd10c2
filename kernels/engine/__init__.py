"""The grading engine: exercises, source policy, sandboxed NVRTC compile, grading.

Imports only numpy, cupy, pyyaml and the standard library (never the web stack), so it runs on
GPU machines that have no web stack. Heavy parts (the compiler, cupy) load lazily.
"""

from .exercise import Exercise, ExerciseSpecError, UnknownExercise, list_exercises, load_exercise
from .result import SCHEMA_VERSION, Result, Verdict

__all__ = [
    "grade", "Result", "Verdict", "SCHEMA_VERSION", "Exercise", "ExerciseSpecError",
    "UnknownExercise", "load_exercise", "list_exercises",
]


def __getattr__(name: str):
    # grade pulls in the compiler; load it only when asked for.
    if name == "grade":
        from .grade import grade

        return grade
    raise AttributeError(name)
