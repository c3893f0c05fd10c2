"""SASS and PTX by source line, instruction classes and the SASS diff, on real NVRTC cubins
disassembled by the real nvdisasm inside the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernels.engine.insight import disasm, sass, static_insight

ROOT = Path(__file__).resolve().parents[2]
NAIVE = (ROOT / "kernels/gemm/naive.cu").read_text()
TILED = (ROOT / "kernels/gemm/tiled.cu").read_text()

VEC = """extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 3 < M * N) {
        float4 a = reinterpret_cast<const float4*>(A)[i];
        reinterpret_cast<float4*>(C)[i] = a;
    }
}
"""

SPILL = """extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    float a[64];
    for (int i = 0; i < 64; ++i) a[i] = A[(i * N + threadIdx.x) % 1000];
    float s = 0.0f;
    for (int i = 0; i < 64; ++i) s += a[(i * 7 + threadIdx.x) % 64];
    C[threadIdx.x] = s;
}
"""


def line_of(source: str, needle: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), 1) if needle in text)


def disassembled(compiled):
    d = disasm.disassemble(compiled.cubin, sandboxed=compiled.sandboxed)
    assert d.ok, d.reason
    assert d.tool.startswith("nvdisasm ")
    return sass.parse_sass(d.text)


def test_cupy_cubin_is_one_byte_short_and_is_completed(compile_gemm):
    c = compile_gemm(NAIVE)
    fixed = disasm.complete_elf(c.cubin)
    assert len(fixed) == len(c.cubin) + 1 and fixed[-1] == 0
    assert disasm.complete_elf(fixed) == fixed  # already complete: unchanged
    assert disasm.complete_elf(b"not an elf") == b"not an elf"


def test_naive_gemm_lines_and_classes(compile_gemm):
    c = compile_gemm(NAIVE)
    s = disassembled(c)
    assert s.functions == ["gemm"] and not s.truncated
    counts = sass.class_counts(s.instructions)
    assert counts["global_load"] > 0 and counts["ffma"] > 0
    assert counts["shared_load"] == counts["barrier"] == counts["local_load"] == 0
    rows = sass.by_line(s.instructions)
    # the dot-product line holds the loads and the FFMAs; the store line holds the store
    dot = str(line_of(NAIVE, "acc += A["))
    store = str(line_of(NAIVE, "C[(size_t)row"))
    assert rows[dot]["global_load"] == counts["global_load"]
    assert rows[dot]["ffma"] == counts["ffma"]
    assert rows[store]["global_store"] == 1
    # every line number is a line of the learner's file (the signature check has none)
    n_lines = len(NAIVE.splitlines())
    assert all(1 <= int(k) <= n_lines for k in rows)
    assert sass.widths(s.instructions, "global_load") == {"32": counts["global_load"]}


def test_tiled_gemm_uses_shared_memory_and_barriers(compile_gemm):
    s = disassembled(compile_gemm(TILED))
    counts = sass.class_counts(s.instructions)
    assert counts["shared_load"] > 0 and counts["shared_store"] >= 2 and counts["barrier"] >= 2
    rows = sass.by_line(s.instructions)
    sync_lines = [i for i, t in enumerate(TILED.splitlines(), 1) if "__syncthreads" in t]
    assert sum(rows.get(str(n), {}).get("barrier", 0) for n in sync_lines) == counts["barrier"]


def test_float4_loads_are_128_bit(compile_gemm):
    s = disassembled(compile_gemm(VEC))
    assert sass.widths(s.instructions, "global_load") == {"128": 1}
    assert sass.widths(s.instructions, "global_store") == {"128": 1}
    ldg = next(i for i in s.instructions if i.cls == "global_load")
    # the compiler may sink the load to the store that uses it
    assert ldg.opcode.startswith("LDG.E.128") and ldg.line in (line_of(VEC, "float4 a ="), line_of(VEC, "(C)[i] = a"))


def test_local_array_shows_local_loads_and_stores(compile_gemm):
    s = disassembled(compile_gemm(SPILL))
    counts = sass.class_counts(s.instructions)
    assert counts["local_load"] > 0 and counts["local_store"] > 0


def test_bounds_check_is_a_compare_with_guarded_code(compile_gemm):
    s = disassembled(compile_gemm(NAIVE))
    guard = line_of(NAIVE, "if (row >= M")
    on_line = [i for i in s.instructions if i.line == guard]
    assert any(i.cls == "compare" for i in on_line)
    assert any(i.predicated for i in s.instructions)


def test_ptx_lines_follow_loc_directives(compile_gemm):
    c = compile_gemm(NAIVE)
    lines, truncated = sass.parse_ptx(c.ptx)
    assert not truncated
    dot = line_of(NAIVE, "acc += A[")
    on_dot = [t for n, t in lines if n == dot]
    assert any(t.startswith("ld.global") for t in on_dot) and any(t.startswith("fma.rn.f32") for t in on_dot)
    assert not any(t.startswith(".loc") or t.startswith(".file") for _, t in lines)
    assert all(n is None or 1 <= n <= len(NAIVE.splitlines()) for n, _ in lines)


def test_ptx_inlined_header_code_goes_to_the_calling_line():
    ptx = "\n".join([
        ".visible .entry k(", ")", "{",
        ".loc 2 100 3, function_name $L__info_string0, inlined_at 1 7 5",
        "cvt.f32.f16 %f1, %h1;",
        ".loc 1 8 1",
        "ret;", "}",
        '.file 1 "/tmp/kernel.cu"', '.file 2 "/usr/include/cuda_fp16.hpp"',
    ])
    lines, _ = sass.parse_ptx(ptx)
    assert (7, "cvt.f32.f16 %f1, %h1;") in lines and (8, "ret;") in lines


def test_sass_inlined_header_code_goes_to_the_calling_line():
    text = "\n".join([
        "\t.text.k:",
        '\t//## File "/usr/local/cuda/include/cuda_fp16.hpp", line 700 inlined at "/tmp/kernel.cu", line 4',
        "        /*0000*/                   HADD2.F32 R0, -RZ, R2.H0_H0 ;",
        '\t//## File "/x/signature_check", line 3',
        "        /*0010*/                   EXIT ;",
    ])
    s = sass.parse_sass(text)
    assert [(i.line, i.opcode) for i in s.instructions] == [(4, "HADD2.F32"), (None, "EXIT")]


def test_instruction_cap_marks_truncation():
    text = "\n".join(f"        /*{i * 16:04x}*/                   NOP ;" for i in range(50))
    s = sass.parse_sass(text, max_instructions=10)
    assert len(s.instructions) == 10 and s.truncated


@pytest.mark.parametrize("opcode, cls, width", [
    ("LDG.E", "global_load", 32), ("LDG.E.128.CONSTANT", "global_load", 128), ("LDG.E.64", "global_load", 64),
    ("LDG.E.U8", "global_load", 8), ("STG.E.128", "global_store", 128), ("LDS.128", "shared_load", 128),
    ("LDSM.16.M88.4", "shared_load", None), ("STS", "shared_store", 32), ("BAR.SYNC.DEFER_BLOCKING", "barrier", None),
    ("FFMA", "ffma", None), ("HMMA.16816.F32", "tensor", None), ("HGMMA.64x128x16.F32", "tensor", None),
    ("LDL.64", "local_load", 64), ("STL.128", "local_store", 128), ("ISETP.GE.AND", "compare", None),
    ("LDGSTS.E.BYPASS.128", "async_copy", None), ("IMAD", None, None), ("FADD", None, None),
])
def test_classes(opcode, cls, width):
    assert sass.classify(opcode) == (cls, width)


def test_diff_of_two_submissions(compile_gemm):
    a = disassembled(compile_gemm(NAIVE))
    b = disassembled(compile_gemm(TILED))
    rows = {r["cls"]: r for r in sass.diff_counts(sass.class_counts(a.instructions), sass.class_counts(b.instructions))}
    assert rows["shared_load"]["old"] == 0 and rows["shared_load"]["delta"] > 0
    assert rows["barrier"]["new"] >= 2
    # register renumbering alone is no change (the panel diffs normalised text)
    assert sass.normalised("FFMA R1, R2, R3, R1") == sass.normalised("FFMA R7, R8, R9, R7")
    assert sass.normalised("@!P0 BRA `(.L_x_1)") == sass.normalised("@!P2 BRA `(.L_x_7)")
    assert sass.normalised("LDG.E R1, desc[UR4][R2.64]") != sass.normalised("LDG.E.128 R1, desc[UR4][R2.64]")


def test_static_insight_section(compile_gemm):
    c = compile_gemm(TILED)
    out = static_insight(exercise_id="gemm", cubin=c.cubin, ptx=c.ptx, arch="sm_90", block=(32, 32, 1),
                         registers=c.resources["registers"], shared_bytes=c.resources["shared_bytes"],
                         resources=c.resources, source=TILED, sandboxed=c.sandboxed)
    assert out["version"] == "insight/1" and out["sass"]["available"]
    assert out["sass"]["counts"]["barrier"] >= 2
    assert out["occupancy"]["threads_per_block"] == 1024 and out["occupancy"]["blocks_per_sm"] >= 1
    assert out["ptx"]["lines"]


def test_missing_nvdisasm_is_a_reason_not_an_error(monkeypatch, compile_gemm):
    c = compile_gemm(NAIVE)
    monkeypatch.setattr(disasm, "find_nvdisasm", lambda: None)
    d = disasm.disassemble(c.cubin)
    assert not d.ok and d.reason == "NVDISASM_MISSING"


def test_output_cap_stops_the_tool(compile_gemm):
    c = compile_gemm(TILED)
    d = disasm.disassemble(c.cubin, sandboxed=c.sandboxed, cap=2000)
    assert d.ok and d.truncated and len(d.text) <= 2000
