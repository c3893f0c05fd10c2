"""Command line for graders and developers (no web stack needed).

    python -m kernels.engine compile FILE.cu --exercise gemm [--launch JSON] [--arch sm_90]
        grade FILE.cu as a submission (policy, launch, sandboxed compile, GPU when present)
        and print the Result JSON. Exit status 0 when the verdict is PASSED or UNAVAILABLE
        with the compile succeeding, 1 otherwise.
    python -m kernels.engine compile FILE.cu [--arch sm_90a]
        without --exercise: policy + compile only (e.g. ladder rungs); prints kernel name,
        resources and log as JSON.
    python -m kernels.engine list        the exercise ids
    python -m kernels.engine check       load every spec.yaml (exit 1 on the first error)
    python -m kernels.engine schema      rewrite kernels/engine/result.schema.json
    python -m kernels.engine sandbox     can a sandboxed compile worker start here?
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernels.engine")
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile", help="grade or compile one .cu file")
    c.add_argument("file", type=Path)
    c.add_argument("--exercise", "-e")
    c.add_argument("--launch", help='e.g. \'{"block": [32, 32, 1], "tile": [32, 32], "smem": 0}\'')
    c.add_argument("--arch", default=None)
    c.add_argument("--save-cubin", type=Path, help="write the cubin here (no-exercise mode)")
    sub.add_parser("list")
    sub.add_parser("check")
    sub.add_parser("schema")
    sub.add_parser("sandbox")
    args = parser.parse_args(argv)

    if args.cmd == "list":
        from .exercise import list_exercises

        print("\n".join(list_exercises()))
        return 0
    if args.cmd == "check":
        from .exercise import ExerciseSpecError, list_exercises, load_exercise

        for ex_id in list_exercises():
            try:
                load_exercise(ex_id)
            except ExerciseSpecError as exc:
                print(exc, file=sys.stderr)
                return 1
            print(f"ok  {ex_id}")
        return 0
    if args.cmd == "schema":
        from .result import write_schema_file

        print(write_schema_file())
        return 0
    if args.cmd == "sandbox":
        from .compiler import get_compiler

        compiler = get_compiler()
        ok, reason = compiler.available()
        print(json.dumps({"available": ok, "reason": reason, "sandboxed": compiler.worker.sandboxed}))
        compiler.close()
        return 0 if ok else 1
    return _compile(args)


def _compile(args: argparse.Namespace) -> int:
    from .compiler import CompileError, Compiler

    data = args.file.read_bytes()
    compiler = Compiler(args.arch)
    try:
        if args.exercise:
            from .grade import grade

            launch = json.loads(args.launch) if args.launch else None
            result = grade(args.exercise, data, launch,
                           on_phase=lambda p: print(f"[{p}]", file=sys.stderr), compiler=compiler)
            print(result.to_json(indent=2))
            compiled_ok = result.verdict.value == "PASSED" or (
                result.verdict.value == "UNAVAILABLE" and result.resources is not None)
            return 0 if compiled_ok else 1

        from .policy import SourceRejected, check_source

        try:
            text = check_source(data)
            k = compiler.compile(text)
        except SourceRejected as exc:
            print(json.dumps({"ok": False, "code": exc.code, "params": exc.params}, indent=2))
            return 1
        except CompileError as exc:
            print(json.dumps({"ok": False, "verdict": exc.verdict.value, "code": exc.code,
                              "params": exc.params, "log": exc.log}, indent=2, ensure_ascii=False))
            return 1
        if args.save_cubin:
            args.save_cubin.write_bytes(k.cubin)
        print(json.dumps({"ok": True, "kernel_name": k.kernel_name, "arch": k.arch,
                          "resources": k.resources, "log": k.log, "cubin_bytes": len(k.cubin),
                          "cached": k.cached, "sandboxed": k.sandboxed}, indent=2, ensure_ascii=False))
        return 0
    finally:
        compiler.close()


if __name__ == "__main__":
    sys.exit(main())
