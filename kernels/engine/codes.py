"""Message codes: the engine's whole vocabulary towards learners. No prose lives in the engine.

The web app keeps one Korean and one English text per code and fills in the params.
Each constant's comment lists the params it carries. Codes are stable: never reuse a code
for a different meaning; add a new one instead.

Any part of the engine (including kernels/engine/gpu/) may use these; a code missing here may
still be emitted (the schema only asks for UPPER_SNAKE), but then the web app shows it raw,
so add it here too.
"""

# ---- success ---------------------------------------------------------------------------
OK = "OK"  # {}
COMPILED = "COMPILED"  # {} compile succeeded; nothing run (part 1 / no GPU)
PASSED = "PASSED"  # {sizes: int} all correctness sizes passed (and timing done)

# ---- source checks (before compile) ----------------------------------------------------
SOURCE_TOO_LARGE = "SOURCE_TOO_LARGE"  # {bytes, limit}
SOURCE_EMPTY = "SOURCE_EMPTY"  # {}
SOURCE_NOT_UTF8 = "SOURCE_NOT_UTF8"  # {offset}
SOURCE_HAS_NUL = "SOURCE_HAS_NUL"  # {offset}
SOURCE_INCLUDE_FORBIDDEN = "SOURCE_INCLUDE_FORBIDDEN"  # {line, token}
SOURCE_DIRECTIVE_FORBIDDEN = "SOURCE_DIRECTIVE_FORBIDDEN"  # {line, directive}
SOURCE_TRIGRAPH_FORBIDDEN = "SOURCE_TRIGRAPH_FORBIDDEN"  # {line, token}
SOURCE_DIGRAPH_FORBIDDEN = "SOURCE_DIGRAPH_FORBIDDEN"  # {line, token}
SOURCE_PRAGMA_FORBIDDEN = "SOURCE_PRAGMA_FORBIDDEN"  # {line, pragma, allowed: [..]}
SOURCE_TOKEN_PASTE_FORBIDDEN = "SOURCE_TOKEN_PASTE_FORBIDDEN"  # {line}
SOURCE_RAW_STRING_FORBIDDEN = "SOURCE_RAW_STRING_FORBIDDEN"  # {line}
SOURCE_BACKSLASH_FORBIDDEN = "SOURCE_BACKSLASH_FORBIDDEN"  # {line} outside literals, not a splice
SOURCE_CONTROL_CHAR = "SOURCE_CONTROL_CHAR"  # {line}
SOURCE_NON_ASCII_CODE = "SOURCE_NON_ASCII_CODE"  # {line} non-ASCII outside comments and literals
SOURCE_CHARACTER_FORBIDDEN = "SOURCE_CHARACTER_FORBIDDEN"  # {line, char} ASCII outside the basic source set ($ @ `)

# ---- launch request --------------------------------------------------------------------
LAUNCH_NOT_OBJECT = "LAUNCH_NOT_OBJECT"  # {}
LAUNCH_UNKNOWN_KEY = "LAUNCH_UNKNOWN_KEY"  # {key, allowed: [..]}
LAUNCH_MISSING_KEY = "LAUNCH_MISSING_KEY"  # {key}
LAUNCH_BAD_SHAPE = "LAUNCH_BAD_SHAPE"  # {key, expected_length}
LAUNCH_NOT_POSITIVE_INT = "LAUNCH_NOT_POSITIVE_INT"  # {key, index, value}
LAUNCH_SMEM_NOT_INT = "LAUNCH_SMEM_NOT_INT"  # {value}
LAUNCH_PROFILE_NOT_BOOL = "LAUNCH_PROFILE_NOT_BOOL"  # {value}
LAUNCH_BLOCK_DIM_TOO_LARGE = "LAUNCH_BLOCK_DIM_TOO_LARGE"  # {axis, value, limit}
LAUNCH_TOO_MANY_THREADS = "LAUNCH_TOO_MANY_THREADS"  # {threads, limit}
LAUNCH_SMEM_TOO_LARGE = "LAUNCH_SMEM_TOO_LARGE"  # {smem, limit}
LAUNCH_SMEM_TOTAL_TOO_LARGE = "LAUNCH_SMEM_TOTAL_TOO_LARGE"  # {smem, static, limit}
LAUNCH_GRID_TOO_LARGE = "LAUNCH_GRID_TOO_LARGE"  # {axis, value, limit, size}
LAUNCH_TILE_TOO_LARGE = "LAUNCH_TILE_TOO_LARGE"  # {axis, value, limit}

# ---- compile ---------------------------------------------------------------------------
COMPILE_FAILED = "COMPILE_FAILED"  # {errors: int, first_line: int|None}
COMPILE_KERNEL_MISSING = "COMPILE_KERNEL_MISSING"  # {name, expected}
COMPILE_SIGNATURE_MISMATCH = "COMPILE_SIGNATURE_MISMATCH"  # {name, expected}
COMPILE_NOT_EXTERN_C = "COMPILE_NOT_EXTERN_C"  # {name, expected}
COMPILE_NOT_GLOBAL = "COMPILE_NOT_GLOBAL"  # {name, expected}
COMPILE_TIMEOUT = "COMPILE_TIMEOUT"  # {seconds}
COMPILE_RESOURCE_LIMIT = "COMPILE_RESOURCE_LIMIT"  # {limit: "cpu"|"memory"}
COMPILE_OUTPUT_TOO_LARGE = "COMPILE_OUTPUT_TOO_LARGE"  # {bytes, limit}

# ---- grading could not happen (not the learner's fault) --------------------------------
UNAVAILABLE_NO_GPU = "UNAVAILABLE_NO_GPU"  # {} compiled fine, nothing to run it on
UNAVAILABLE_NO_SANDBOX = "UNAVAILABLE_NO_SANDBOX"  # {reason}
UNAVAILABLE_NVRTC = "UNAVAILABLE_NVRTC"  # {reason}
UNAVAILABLE_WORKER_CRASHED = "UNAVAILABLE_WORKER_CRASHED"  # {stage}
UNAVAILABLE_UNKNOWN_EXERCISE = "UNAVAILABLE_UNKNOWN_EXERCISE"  # {exercise}
UNAVAILABLE_INTERNAL = "UNAVAILABLE_INTERNAL"  # {stage}

# ---- running (emitted by kernels/engine/gpu/) ------------------------------------------
WRONG_ANSWER = "WRONG_ANSWER"  # {size, index, got, expected}
RUNTIME_ILLEGAL_ADDRESS = "RUNTIME_ILLEGAL_ADDRESS"  # {size}
RUNTIME_LAUNCH_FAILED = "RUNTIME_LAUNCH_FAILED"  # {size, cuda_error}
RUNTIME_ERROR = "RUNTIME_ERROR"  # {size, cuda_error}
TIME_LIMIT_EXCEEDED = "TIME_LIMIT_EXCEEDED"  # {seconds, phase}
INPUT_MODIFIED = "INPUT_MODIFIED"  # {size, input, index} the kernel wrote into an input array
TOO_SLOW = "TOO_SLOW"  # {ratio, limit, size} correct, but so much slower than the naive kernel
#   (ratio times, past limit) or than the job's GPU-time budget allows that it was not timed
WRONG_ANSWER_TIMED_RUN = "WRONG_ANSWER_TIMED_RUN"  # {size, index, got, expected} correct while
#   checked, wrong once timing started (replay caches, "honest only while warming")

# ---- flags (Result.flags) --------------------------------------------------------------
FLAG_IMPLAUSIBLY_FAST = "IMPLAUSIBLY_FAST"  # {kernel, work_rate, unit, limit, size}
FLAG_NOISY_TIMING = "NOISY_TIMING"  # {rse, size}
FLAG_DEVICE_OUTPUT = "DEVICE_OUTPUT"  # {text (<= 4096 chars), bytes, truncated} device printf output
FLAG_REGISTER_SPILL = "REGISTER_SPILL"  # {spill_store_bytes, spill_load_bytes}
FLAG_CACHED_COMPILE = "CACHED_COMPILE"  # {}
FLAG_UNSANDBOXED_COMPILE = "UNSANDBOXED_COMPILE"  # {} dev setting was on


def all_codes() -> list[str]:
    """Every code defined here (the web app checks it has a translation for each)."""
    return sorted({v for k, v in globals().items() if k.isupper() and isinstance(v, str)})
