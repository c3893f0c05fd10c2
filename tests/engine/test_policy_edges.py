"""Edges of the source policy that the disguise corpus (test_policy.py) does not pin down: the exact
size limit, a NUL at the very first byte, DEL as a control character, pragmas outside the allowlist,
and a backslash followed by white space, which is not a line splice (NVRTC agrees)."""

from __future__ import annotations

import pytest

from kernels.engine.policy import SourceRejected, check_source

KERNEL = '__global__ void k(float* x) { x[0] = 1.0f; }\n'


def _rejected(source: str | bytes) -> SourceRejected:
    with pytest.raises(SourceRejected) as info:
        check_source(source)
    return info.value


def test_a_source_of_exactly_64_kib_is_accepted_and_one_byte_more_is_not():
    body = KERNEL + "//" + "x" * (65536 - len(KERNEL) - 3) + "\n"
    assert len(body.encode()) == 65536
    assert check_source(body) == body
    exc = _rejected(body + " ")
    assert exc.code == "SOURCE_TOO_LARGE"
    assert exc.params == {"bytes": 65537, "limit": 65536}


def test_a_nul_at_the_first_byte_is_reported_as_a_nul_at_offset_zero():
    exc = _rejected(b"\x00" + KERNEL.encode())
    assert exc.code == "SOURCE_HAS_NUL" and exc.params == {"offset": 0}


def test_del_is_a_control_character_even_inside_a_comment():
    exc = _rejected(KERNEL + "// a\x7f\n")
    assert exc.code == "SOURCE_CONTROL_CHAR" and exc.params == {"line": 2}


@pytest.mark.parametrize("pragma", ["once", "message", "GCC", "STDC"])
def test_pragmas_outside_the_allowlist_are_refused(pragma):
    exc = _rejected(f"#pragma {pragma}\n" + KERNEL)
    assert exc.code == "SOURCE_PRAGMA_FORBIDDEN"
    assert exc.params["pragma"] == pragma and exc.params["line"] == 1
    assert exc.params["allowed"] == ["nounroll", "nv_diag_default", "nv_diag_error", "nv_diag_suppress",
                                     "nv_diag_warning", "unroll"]


@pytest.mark.parametrize("pragma", ["unroll", "unroll 4", "nounroll", "nv_diag_suppress 177"])
def test_the_allowed_pragmas_pass(pragma):
    source = f"#pragma {pragma}\n" + KERNEL
    assert check_source(source) == source


@pytest.mark.parametrize("gap", [" ", "\t", " \t "])
def test_a_backslash_before_white_space_does_not_splice_a_comment_into_the_next_line(gap):
    # If the scan spliced here, the pragma would be hidden inside the comment from us while NVRTC
    # (which does not splice) runs it.
    exc = _rejected(f"// note \\{gap}\n#pragma once\n" + KERNEL)
    assert exc.code == "SOURCE_PRAGMA_FORBIDDEN" and exc.params["line"] == 2


def test_a_real_splice_still_continues_a_comment():
    source = "// note \\\n#pragma once\n" + KERNEL
    assert check_source(source) == source
