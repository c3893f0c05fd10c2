"""Plain-language sentences for everything the grading engine can say (kernels/engine/codes.py),
filled with the numbers it sends. English msgids here; Korean lives in ko.po. The short label and
explanation of each code, verdict, state and kernel are app/core/vocabulary.py's.

The engine never writes prose: it sends a code and params, and this table turns them into a
sentence. tests/panel/test_texts.py fails when a code in ``all_codes()`` has no text here.
"""
from __future__ import annotations


def _(text: str) -> str:  # marks msgids for extraction; translated per request in present.py
    return text


CODES = {
    # success
    "OK": _("All good."),
    "COMPILED": _("Compiled successfully; nothing was run."),
    "PASSED": _("Correct at all %(sizes)s sizes, and timed."),
    # source checks
    "SOURCE_TOO_LARGE": _("The source is too large: %(bytes)s bytes, at most %(limit)s."),
    "SOURCE_EMPTY": _("The source is empty."),
    "SOURCE_NOT_UTF8": _("The source is not valid UTF-8 text (byte %(offset)s)."),
    "SOURCE_HAS_NUL": _("The source contains a NUL character (byte %(offset)s)."),
    "SOURCE_INCLUDE_FORBIDDEN": _("Line %(line)s: #include is not allowed (%(token)s); everything you need is already declared."),
    "SOURCE_DIRECTIVE_FORBIDDEN": _("Line %(line)s: the preprocessor directive #%(directive)s is not allowed."),
    "SOURCE_TRIGRAPH_FORBIDDEN": _("Line %(line)s: trigraphs (%(token)s) are not allowed."),
    "SOURCE_DIGRAPH_FORBIDDEN": _("Line %(line)s: digraphs (%(token)s) are not allowed."),
    "SOURCE_PRAGMA_FORBIDDEN": _("Line %(line)s: #pragma %(pragma)s is not allowed (allowed: %(allowed)s)."),
    "SOURCE_TOKEN_PASTE_FORBIDDEN": _("Line %(line)s: token pasting (##) is not allowed."),
    "SOURCE_RAW_STRING_FORBIDDEN": _("Line %(line)s: raw string literals are not allowed."),
    "SOURCE_BACKSLASH_FORBIDDEN": _("Line %(line)s: a backslash outside a string or character literal is not allowed."),
    "SOURCE_CONTROL_CHAR": _("Line %(line)s: the source contains a control character."),
    "SOURCE_NON_ASCII_CODE": _("Line %(line)s: non-ASCII characters are allowed only in comments and string literals."),
    "SOURCE_CHARACTER_FORBIDDEN":
        _("Line %(line)s: the character %(char)s is not part of C++ source; it is allowed only in comments and string literals."),
    # launch request
    "LAUNCH_NOT_OBJECT": _("The launch settings must be an object with block, tile and smem."),
    "LAUNCH_UNKNOWN_KEY": _("Unknown launch setting %(key)s (allowed: %(allowed)s)."),
    "LAUNCH_MISSING_KEY": _("The launch setting %(key)s is missing."),
    "LAUNCH_BAD_SHAPE": _("The launch setting %(key)s must have %(expected_length)s numbers."),
    "LAUNCH_NOT_POSITIVE_INT": _("%(key)s[%(index)s] must be a positive whole number, not %(value)s."),
    "LAUNCH_SMEM_NOT_INT": _("Shared memory must be a whole number of bytes, not %(value)s."),
    "LAUNCH_PROFILE_NOT_BOOL": _("The launch setting profile must be true or false, not %(value)s."),
    "LAUNCH_BLOCK_DIM_TOO_LARGE": _("Block size along %(axis)s is %(value)s; the GPU allows at most %(limit)s."),
    "LAUNCH_TOO_MANY_THREADS": _("The block has %(threads)s threads; the GPU allows at most %(limit)s per block."),
    "LAUNCH_SMEM_TOO_LARGE": _("%(smem)s bytes of dynamic shared memory requested; at most %(limit)s per block."),
    "LAUNCH_SMEM_TOTAL_TOO_LARGE":
        _("%(smem)s bytes of dynamic plus %(static)s bytes of static shared memory exceed the limit of %(limit)s bytes per block."),
    "LAUNCH_GRID_TOO_LARGE": _("The grid along %(axis)s would be %(value)s blocks (limit %(limit)s) at size %(size)s: use a larger tile."),
    "LAUNCH_TILE_TOO_LARGE": _("The tile along %(axis)s is %(value)s; at most %(limit)s."),
    # compile
    "COMPILE_FAILED": _("The kernel did not compile (compiler errors: %(errors)s); the first is on line %(first_line)s."),
    "COMPILE_KERNEL_MISSING": _("No kernel named %(name)s was found. Expected: %(expected)s"),
    "COMPILE_SIGNATURE_MISMATCH": _("The kernel %(name)s has the wrong parameters. Expected: %(expected)s"),
    "COMPILE_NOT_EXTERN_C": _("The kernel %(name)s must be declared extern \"C\". Expected: %(expected)s"),
    "COMPILE_NOT_GLOBAL": _("%(name)s must be a __global__ kernel. Expected: %(expected)s"),
    "COMPILE_TIMEOUT": _("Compiling took longer than %(seconds)s seconds and was stopped."),
    "COMPILE_RESOURCE_LIMIT": _("The compiler ran out of its %(limit)s allowance; simplify the code (e.g. fewer unrolled loops)."),
    "COMPILE_OUTPUT_TOO_LARGE": _("The compiled kernel is too large (%(bytes)s bytes, at most %(limit)s)."),
    # not the learner's fault
    "UNAVAILABLE_NO_GPU": _("Your kernel compiled. This server has no GPU right now, so it waits for one to check and time it."),
    "UNAVAILABLE_NO_SANDBOX": _("Grading is unavailable: the compile sandbox is missing (%(reason)s). This is not your fault."),
    "UNAVAILABLE_NVRTC": _("Grading is unavailable: the CUDA compiler could not start (%(reason)s). This is not your fault."),
    "UNAVAILABLE_WORKER_CRASHED":
        _("The grading worker stopped unexpectedly while %(stage)s. This is not your fault; please submit again."),
    "UNAVAILABLE_UNKNOWN_EXERCISE": _("There is no exercise called %(exercise)s."),
    "UNAVAILABLE_INTERNAL": _("Something went wrong on our side (%(stage)s). This is not your fault; please submit again."),
    # running
    "WRONG_ANSWER": _("Wrong answer at size %(size)s: at index %(index)s the kernel wrote %(got)s, expected %(expected)s."),
    "RUNTIME_ILLEGAL_ADDRESS": _("At size %(size)s the kernel read or wrote outside its arrays (illegal memory address)."),
    "RUNTIME_LAUNCH_FAILED": _("At size %(size)s the kernel could not be launched (%(cuda_error)s)."),
    "RUNTIME_ERROR": _("At size %(size)s the kernel failed while running (%(cuda_error)s)."),
    "TIME_LIMIT_EXCEEDED": _("The kernel took longer than %(seconds)s seconds while %(phase)s."),
    "TOO_SLOW": _("Too slow to time: %(ratio)s× slower than the naive kernel at size %(size)s (timing stops past "
                  "%(limit)s×). Your kernel is correct; make it faster to see its speedups."),
    "INPUT_MODIFIED": _("At size %(size)s the kernel wrote into the input %(input)s (index %(index)s); inputs must stay unchanged."),
    "WRONG_ANSWER_TIMED_RUN":
        _("Correct while checked, but wrong during timing at size %(size)s: index %(index)s was %(got)s, expected %(expected)s."),
    # flags
    "IMPLAUSIBLY_FAST":
        _("Suspiciously fast: %(kernel)s reached %(work_rate)s %(unit)s at size %(size)s, above the GPU's limit of %(limit)s. "
          "A grader will look at it."),
    "NOISY_TIMING": _("The timings were noisy (relative error %(rse)s at size %(size)s); the speedups are less certain."),
    "DEVICE_OUTPUT": _("The kernel printed %(bytes)s bytes of output (printf slows kernels down)."),
    "REGISTER_SPILL":
        _("Registers spilled to local memory (%(spill_store_bytes)s bytes stored, %(spill_load_bytes)s loaded): this usually costs speed."),
    "CACHED_COMPILE": _("This exact code was compiled before; the cached build was reused."),
    "UNSANDBOXED_COMPILE": _("Compiled without the sandbox (development setting)."),
}
