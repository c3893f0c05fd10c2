"""Every hint rule: a kernel (or measured fact) that triggers it, and one that does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernels.engine.insight import finish, hints, static_insight

from .test_sass import NAIVE, SPILL, TILED, VEC

ROOT = Path(__file__).resolve().parents[2]


def fired(facts):
    return set(hints.hint_ids(hints.evaluate(facts)))


def insight_for(compile_gemm, source, block=(32, 32, 1), exercise="gemm", timings=None, counters=None,
                ceilings=None, monkeypatch=None):
    from kernels.engine import load_exercise

    c = compile_gemm(source)
    s = static_insight(exercise_id=exercise, cubin=c.cubin, ptx=c.ptx, arch="sm_90", block=block,
                       registers=c.resources["registers"], shared_bytes=c.resources["shared_bytes"],
                       resources=c.resources, source=source, sandboxed=c.sandboxed)
    return finish(s, load_exercise(exercise), timings or [], None, counters)


def ids(insight):
    return {h["id"] for h in insight["hints"]}


def test_table_is_complete_and_bilingual():
    rules = hints.rules()
    assert len(rules) >= 7
    for r in rules:
        assert r["text"]["en"] and r["text"]["ko"]
        assert set(r["lesson"]["heading"]) == {"en", "ko"}
        assert (ROOT / "lessons" / r["lesson"]["folder"]).is_dir()
        for lang in ("en", "ko"):  # the heading exists in that language's lesson
            md = (ROOT / "lessons" / r["lesson"]["folder"] / f"{lang}.md").read_text(encoding="utf-8")
            assert f"## {r['lesson']['heading'][lang]}\n" in md, (r["id"], lang)


def test_gemm_without_shared_reuse(compile_gemm):
    assert "gemm_without_shared_reuse" in ids(insight_for(compile_gemm, NAIVE))
    assert "gemm_without_shared_reuse" not in ids(insight_for(compile_gemm, TILED))


def test_hgemm_without_tensor_cores():
    assert "hgemm_without_tensor_cores" in fired(hints.facts(exercise="hgemm", counts={"tensor": 0, "ffma": 64}))
    assert "hgemm_without_tensor_cores" not in fired(hints.facts(exercise="hgemm", counts={"tensor": 8}))
    assert "hgemm_without_tensor_cores" not in fired(hints.facts(exercise="gemm", counts={"tensor": 0}))


def test_register_spills(compile_gemm):
    assert "register_spills" in ids(insight_for(compile_gemm, SPILL, block=(256, 1, 1)))
    assert "register_spills" not in ids(insight_for(compile_gemm, TILED))


DIVERGENT_SYNC = """extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float s[32];
    if (threadIdx.x < 16) {
        s[threadIdx.x] = A[threadIdx.x];
        __syncthreads();
    }
    C[threadIdx.x] = s[threadIdx.x ^ 1];
}
"""


def test_sync_in_divergent_branch(compile_gemm):
    got = insight_for(compile_gemm, DIVERGENT_SYNC, block=(32, 1, 1))
    hint = next(h for h in got["hints"] if h["id"] == "sync_in_divergent_branch")
    assert hint["params"] == {"source.sync_in_divergent_branch": 6}
    assert "Line 6 calls __syncthreads()" in hints.text_for(hint, "en")
    assert "6번째 줄" in hints.text_for(hint, "ko")
    assert "sync_in_divergent_branch" not in ids(insight_for(compile_gemm, TILED))


@pytest.mark.parametrize("source, line", [
    ("if (threadIdx.x == 0)\n    __syncthreads();", 2),
    ("if (threadIdx.x == 0) { x = 1; } else {\n  __syncthreads(); }", 2),
    ("while (threadIdx.y < n) { __syncthreads(); }", 1),
    ("for (int i = 0; i < 4; ++i) { __syncthreads(); }\nif (threadIdx.x == 0) x = 1;\n__syncthreads();", None),
    ("// if (threadIdx.x) { __syncthreads(); }\n__syncthreads();", None),
    ('const char* s = "if (threadIdx.x) {"; __syncthreads();', None),
    ("if (blockIdx.x == 0) { __syncthreads(); }", None),  # uniform over a block: fine
])
def test_divergent_sync_scanner(source, line):
    assert hints.sync_in_divergent_branch(source) == line


def test_low_occupancy_by_registers_needs_both_facts():
    base = {"exercise": "gemm"}
    low = hints.facts(exercise="gemm", occupancy={"occupancy": 0.125, "limited_by": ["registers"]})
    assert "low_occupancy_registers" in fired(low)
    assert low["occupancy_percent"] == 12
    shared = hints.facts(exercise="gemm", occupancy={"occupancy": 0.125, "limited_by": ["shared"]})
    assert "low_occupancy_registers" not in fired(shared)
    assert "low_occupancy_registers" not in fired(base)


HEAVY = """extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    float acc[160];
#pragma unroll
    for (int i = 0; i < 160; ++i) acc[i] = A[i * 1024 + threadIdx.x];
    for (int k = 0; k < K; ++k) {
        const float b = B[k * N + threadIdx.x];
#pragma unroll
        for (int i = 0; i < 160; ++i) acc[i] = acc[i] * b + 1.0f;
    }
#pragma unroll
    for (int i = 0; i < 160; ++i) C[i * 1024 + threadIdx.x] = acc[i];
}
"""


def test_low_occupancy_from_a_real_kernel(compile_gemm):
    got = insight_for(compile_gemm, HEAVY, block=(128, 1, 1))
    assert got["occupancy"]["registers"] > 160
    assert got["occupancy"]["occupancy"] < 0.25 and "registers" in got["occupancy"]["limited_by"]
    assert "low_occupancy_registers" in ids(got)
    assert "low_occupancy_registers" not in ids(insight_for(compile_gemm, NAIVE))


def test_scalar_loads_when_memory_bound_and_far_from_roof():
    f = hints.facts(exercise="col_sum", global_load_widths={"32": 4},
                    roofline={"bound": "memory", "fraction": 0.3})
    assert "scalar_loads_memory_bound" in fired(f)
    assert f["roofline_percent"] == 30
    assert "scalar_loads_memory_bound" not in fired(hints.facts(
        exercise="col_sum", global_load_widths={"32": 2, "128": 2}, roofline={"bound": "memory", "fraction": 0.3}))
    assert "scalar_loads_memory_bound" not in fired(hints.facts(
        exercise="col_sum", global_load_widths={"32": 4}, roofline={"bound": "memory", "fraction": 0.8}))
    assert "scalar_loads_memory_bound" not in fired(hints.facts(exercise="col_sum", global_load_widths={"32": 4}))


def test_scalar_loads_from_real_kernels(compile_gemm):
    roof = {"bound": "memory", "fraction": 0.3}
    naive = insight_for(compile_gemm, NAIVE)
    vec = insight_for(compile_gemm, VEC, block=(256, 1, 1))
    def fires(ins):
        f = hints.facts(exercise="col_sum", global_load_widths=ins["sass"]["global_load_widths"], roofline=roof)
        return "scalar_loads_memory_bound" in fired(f)
    assert fires(naive) and not fires(vec)


def test_counter_rules_fire_only_with_counters():
    # the H100's numbers (tests/insight/data): a column-walking naive GEMM 16.5, the coalesced
    # naive 2.5, the tiled 4.0 sectors per request, all with 32-bit loads; the float4 solution 16.0
    scalar = {"32": 3}
    assert "uncoalesced_loads" in fired(hints.facts(exercise="gemm", counters={"sectors_per_request": 16.5},
                                                    global_load_widths=scalar))
    for spr in (2.5, 4.0):
        assert "uncoalesced_loads" not in fired(hints.facts(exercise="gemm", counters={"sectors_per_request": spr},
                                                            global_load_widths=scalar))
    # 16 sectors per request is exactly right for 128-bit loads
    assert "uncoalesced_loads" not in fired(hints.facts(exercise="gemm_fast", counters={"sectors_per_request": 16.0},
                                                        global_load_widths={"32": 8, "128": 2}))
    # without the SASS widths the ideal is unknown: silent
    assert "uncoalesced_loads" not in fired(hints.facts(exercise="gemm", counters={"sectors_per_request": 16.5}))
    assert "bank_conflicts" in fired(hints.facts(exercise="transpose", counters={"bank_conflicts_per_request": 7.5}))
    assert "bank_conflicts" not in fired(hints.facts(exercise="transpose", counters={"bank_conflicts_per_request": 0.0}))
    # no counters at all: silent
    assert not {"uncoalesced_loads", "bank_conflicts"} & fired(hints.facts(exercise="gemm"))


def test_texts_fill_every_parameter():
    f = hints.facts(exercise="col_sum", counts={"local_load": 3, "local_store": 1}, global_load_widths={"32": 1},
                    occupancy={"occupancy": 0.1, "limited_by": ["registers"]},
                    roofline={"bound": "memory", "fraction": 0.2},
                    counters={"sectors_per_request": 32, "bank_conflicts_per_request": 3})
    got = hints.evaluate(f)
    assert {"register_spills", "low_occupancy_registers", "scalar_loads_memory_bound",
            "uncoalesced_loads", "bank_conflicts"} <= set(hints.hint_ids(got))
    for h in got:
        for lang in ("en", "ko"):
            text = hints.text_for(h, lang)
            assert "%(" not in text and "?" not in text
    spills = next(h for h in got if h["id"] == "register_spills")
    assert "4 local-memory" in hints.text_for(spills, "en")
    occ = next(h for h in got if h["id"] == "low_occupancy_registers")
    assert "Only 10% of" in hints.text_for(occ, "en")


def test_unknown_hint_id_shows_itself():
    assert hints.text_for({"id": "nope"}, "en") == "nope"
