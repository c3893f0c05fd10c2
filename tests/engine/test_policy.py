"""The source policy refuses #include in every disguise, and lets normal kernels through.

The corpus below holds each disguise seen to work against NVRTC (GPU_FACTS.md) and more.
test_disguises_really_work_without_the_policy proves the dangerous ones are real: compiled
in-process without the policy, NVRTC reads the canary file.
"""

from __future__ import annotations

import secrets

import pytest

from kernels.engine import codes
from kernels.engine.policy import MAX_SOURCE_BYTES, SourceRejected, check_source

CANARY_PATH = "@CANARY@"  # replaced by the canary file's absolute path

# (id, source, expected code, leaks through NVRTC without the policy)
DISGUISES = [
    ("plain", '#include "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("angle", "#include <@CANARY@>\n", codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("spaces", '   #   include   "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("tabs_formfeed", '\t\f#\tinclude "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("digraph", '%:include "@CANARY@"\n', codes.SOURCE_DIGRAPH_FORBIDDEN, True),
    ("digraph_spaced", '  %:  include "@CANARY@"\n', codes.SOURCE_DIGRAPH_FORBIDDEN, True),
    ("splice_in_word", '#inc\\\nlude "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("splice_after_hash", '#\\\ninclude "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("splice_many", '#\\\ni\\\nn\\\nc\\\nl\\\nu\\\nd\\\ne "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("splice_crlf", '#inc\\\r\nlude "@CANARY@"\r\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    # A comment spanning lines is ONE space to the compiler, so these are one directive line each
    # (found in review: they used to pass as a null directive and NVRTC honoured them).
    ("comment_joins_pragma", '#/*\n*/pragma message("x")\n', codes.SOURCE_PRAGMA_FORBIDDEN, False),
    ("comment_joins_line_marker", '#/*\n*/line 7 "signature_check"\n', codes.SOURCE_DIRECTIVE_FORBIDDEN, False),
    # NVRTC reads U+00A0 as a token of its own and then a real _Pragma.
    ("nonascii_glued_to_banned_name", '#define P(s) \u00a0_Pragma(s)\nP("message(1)")\n',
     codes.SOURCE_NON_ASCII_CODE, False),
    # NVRTC reads `$`, `@` and the backtick as tokens of their own too: refused outside
    # comments and literals like every character outside the basic source set.
    ("dollar_glued_to_banned_name", '#define P(s) $_Pragma(s)\nP("message(1)")\n', codes.SOURCE_CHARACTER_FORBIDDEN, False),
    ("at_before_banned_name", 'int a; @_Pragma("message(1)")\n', codes.SOURCE_CHARACTER_FORBIDDEN, False),
    ("backtick_in_has_include", '#if `__has_include("x")\n#endif\n', codes.SOURCE_CHARACTER_FORBIDDEN, False),
    ("comment_between", '# /*c*/ include "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("comment_before", '/* x */ #include "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("multiline_comment_between", '# /*\n*/ include "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("macro_path", '#define F "@CANARY@"\n#include F\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("macro_word", '#define I include\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("include_next", '#include_next "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("has_include", '#if __has_include("@CANARY@")\n#endif\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("has_include_next", '#if __has_include_next("@CANARY@")\n#endif\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("has_embed", '#if __has_embed("@CANARY@")\n#endif\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("embed", 'const char d[] = {\n#embed "@CANARY@"\n};\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("import", '#import "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("pasted_has_include", '#define C(a,b) a##b\n#if C(__has_,inc)("@CANARY@")\n#endif\n', codes.SOURCE_TOKEN_PASTE_FORBIDDEN, False),
    ("pasted_digraph", '#define C(a,b) a%:%:b\n', codes.SOURCE_DIGRAPH_FORBIDDEN, False),
    ("pragma_operator", '_Pragma("message(\\"x\\")")\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("ms_pragma", '__pragma(once)\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("pragma_include", '#pragma include "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("pragma_comment", '#pragma comment(lib, "@CANARY@")\n', codes.SOURCE_PRAGMA_FORBIDDEN, False),
    ("pragma_push_macro", '#pragma push_macro("X")\n', codes.SOURCE_PRAGMA_FORBIDDEN, False),
    ("pragma_spliced", '#pra\\\ngma message("x")\n', codes.SOURCE_PRAGMA_FORBIDDEN, False),
    ("line_with_file", '#line 7 "@CANARY@"\n', codes.SOURCE_DIRECTIVE_FORBIDDEN, False),
    ("line_plain", "#line 7\n", codes.SOURCE_DIRECTIVE_FORBIDDEN, False),
    ("gnu_line_marker", '# 1 "@CANARY@"\n', codes.SOURCE_DIRECTIVE_FORBIDDEN, False),
    ("ident", '#ident "x"\n', codes.SOURCE_DIRECTIVE_FORBIDDEN, False),
    ("unknown_directive", "#assert x\n", codes.SOURCE_DIRECTIVE_FORBIDDEN, False),
    ("trigraph_hash", '??=include "@CANARY@"\n', codes.SOURCE_TRIGRAPH_FORBIDDEN, False),
    ("trigraph_splice", '#inc??/\nlude "@CANARY@"\n', codes.SOURCE_TRIGRAPH_FORBIDDEN, False),
    ("ucn_in_word", '#if __has_\\u0069nclude("@CANARY@")\n#endif\n', codes.SOURCE_BACKSLASH_FORBIDDEN, False),
    ("ucn_directive", '#\\u0069nclude "@CANARY@"\n', codes.SOURCE_BACKSLASH_FORBIDDEN, False),
    ("raw_string_hides", 'const char* s = R"x(\n)x";\n#include "@CANARY@"\n', codes.SOURCE_RAW_STRING_FORBIDDEN, False),
    ("u8_raw_string", 'auto s = u8R"(x)";\n', codes.SOURCE_RAW_STRING_FORBIDDEN, False),
    ("include_after_code", 'int x; /*\n*/ #include "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("include_in_kernel", 'extern "C" __global__ void k(float* p) {\n#include "@CANARY@"\n}\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("string_then_include", 'const char* s = "a\\"b"; \n#include "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("char_then_include", "char c = '\\''; \n#include \"@CANARY@\"\n", codes.SOURCE_INCLUDE_FORBIDDEN, True),
    # after the splice a backslash is left before a newline: the literal ends there, the
    # next line is a directive again (the scan must not run the string on)
    ("backslash_left_after_splice", 'const char* s = "abc\\\\\n\n#include "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, True),
    ("lone_cr_newline", 'int a;\r#include "@CANARY@"\n', codes.SOURCE_INCLUDE_FORBIDDEN, False),
    ("control_char", "int a;\x1b\n", codes.SOURCE_CONTROL_CHAR, False),
]


def _source(template: str, canary: str) -> str:
    return template.replace(CANARY_PATH, canary)


@pytest.fixture(scope="module")
def canary(tmp_path_factory):
    secret = "CANARY_" + secrets.token_hex(16)
    path = tmp_path_factory.mktemp("canary") / "canary.txt"
    path.write_text(secret + "\n", encoding="utf-8")
    return str(path), secret


@pytest.mark.parametrize("name, template, code, leaks", DISGUISES, ids=[d[0] for d in DISGUISES])
def test_every_disguise_is_rejected(canary, name, template, code, leaks):
    with pytest.raises(SourceRejected) as info:
        check_source(_source(template, canary[0]))
    assert info.value.code == code
    assert "line" in info.value.params


@pytest.mark.parametrize("name, template", [(d[0], d[1]) for d in DISGUISES if d[3]],
                         ids=[d[0] for d in DISGUISES if d[3]])
def test_disguises_really_work_without_the_policy(canary, name, template):
    """Without the policy (and without the sandbox) NVRTC reads the canary: the corpus is real."""
    try:
        from cupy.cuda import nvrtc
    except ImportError:
        pytest.skip("cupy's NVRTC binding is not installed")
    path, secret = canary
    prog = nvrtc.createProgram(_source(template, path).replace("\r\n", "\n"), "kernel.cu", [], [])
    try:
        try:
            nvrtc.compileProgram(prog, ["-arch=sm_90", "--std=c++17", "-default-device"])
        except nvrtc.NVRTCError:
            pass
        assert secret in nvrtc.getProgramLog(prog)
    finally:
        nvrtc.destroyProgram(prog)


def test_rejection_reports_learner_line():
    src = "// one\n// two\nint x;\n#  include <x>\n"
    with pytest.raises(SourceRejected) as info:
        check_source(src)
    assert info.value.params["line"] == 4
    src = "int a; \\\nint b;\n\n%:include <x>\n"  # a splice does not shift later lines
    with pytest.raises(SourceRejected) as info:
        check_source(src)
    assert info.value.params["line"] == 4


ACCEPTED = [
    ("naive_gemm", None),
    ("comments_mention_include", "// we include a halo; /* #include would be refused */\n"
                                 "extern \"C\" __global__ void k(float* p) { p[0] = 1; }\n"),
    ("strings_mention_include", 'extern "C" __global__ void k(float* p) { printf("#include %d\\n", 1); }\n'),
    ("identifiers_containing_include", "int included = 1, include_halo = 2, my_embed = 3;\n"),
    ("macros_and_conditionals", "#define TILE 32\n#ifndef TILE\n#error no\n#elif TILE > 16\n#undef TILE\n"
                                "#define TILE 16\n#else\n#endif\n#\n"),
    ("stringise", "#define STR(x) #x\nconst char* s = STR(tile);\n"),
    ("pragmas", "#pragma unroll\n#pragma unroll 4\n#pragma nounroll\n#pragma nv_diag_suppress 177\n"),
    ("digit_separators_and_hex_floats", "int n = 1'000'000; float f = 0x1.8p3f; double d = 1e-5;\n"),
    ("char_literals", "char a = '\"', b = '\\'', c = '/'; const char* s = \"/* not a comment */\";\n"),
    ("division_not_comment", "int a = 4 / 2 /1;\n"),
    ("splice_in_macro", "#define ADD(a, b) \\\n    ((a) + (b))\n"),
    ("crlf", "int a;\r\nint b;\r\n"),
    ("bom", "\ufeffint a;\n"),
    ("korean_comments", "// 행렬 곱: 타일마다 공유 메모리를 쓴다\nint a;\n"),
    ("korean_in_strings", 'const char* s = "행렬 곱";\n'),
    ("multiline_comments", "/* a\n b */\n#pragma unroll\nint a; /* x\n y */ int b;\n"),
    ("dollar_at_backtick_in_comments_and_strings", '// $x @y `z`\nconst char* s = "$_Pragma @ `";\n'),
    ("question_marks", 'const char* s = "why? really?";\n'),
    ("multiplication_unary", "int a = 3 % 2; int b = a %2; int c = (a) % (b);\n"),
]


@pytest.mark.parametrize("name, src", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_normal_sources_are_accepted(name, src):
    from .conftest import NAIVE_GEMM

    text = check_source(src or NAIVE_GEMM)
    assert "\r" not in text and not text.startswith("\ufeff")


def test_size_is_checked_before_anything_else():
    big = '#include "/etc/passwd"\n' + "x" * MAX_SOURCE_BYTES
    with pytest.raises(SourceRejected) as info:
        check_source(big)
    assert info.value.code == codes.SOURCE_TOO_LARGE
    assert info.value.params == {"bytes": len(big.encode()), "limit": 64 * 1024}
    # exactly at the limit is fine; multi-byte characters count as bytes
    check_source("//" + "a" * (MAX_SOURCE_BYTES - 3) + "\n")
    with pytest.raises(SourceRejected) as info:
        check_source("//" + "가" * (MAX_SOURCE_BYTES // 3) + "\n")
    assert info.value.code == codes.SOURCE_TOO_LARGE


@pytest.mark.parametrize("data, code", [
    (b"int a;\x00int b;", codes.SOURCE_HAS_NUL),
    (b"int a; \xff\xfe", codes.SOURCE_NOT_UTF8),
    (b"// \xed\xa0\x80 surrogate\n", codes.SOURCE_NOT_UTF8),
    ("int a; \ud800", codes.SOURCE_NOT_UTF8),
    (b"   \n\t\n", codes.SOURCE_EMPTY),
])
def test_bytes_level_checks(data, code):
    with pytest.raises(SourceRejected) as info:
        check_source(data)
    assert info.value.code == code
