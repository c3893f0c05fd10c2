"""Nsight Compute counters on CPU: parsing ncu's CSV, the derived numbers, and the plain answer
when ncu is absent (the GPU side is tests/insight/test_gpu.py)."""
from __future__ import annotations

from kernels.engine import load_exercise
from kernels.engine.insight import counters
from kernels.engine.launch import validate_launch

# The shape of `ncu --csv --print-units base --metrics ...` (progress lines first, one row per metric).
SAMPLE = '''==PROF== Connected to process 4242 (/usr/bin/python3.12)
==PROF== Profiling "gemm" - 0: 0%....50%....100% - 9 passes
==PROF== Disconnected from process 4242
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4242","python3.12","127.0.0.1","gemm","1","7","(32, 32, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","12,713,984"
"0","4242","python3.12","127.0.0.1","gemm","1","7","(32, 32, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","dram__bytes_write.sum","byte","4,194,304"
"0","4242","python3.12","127.0.0.1","gemm","1","7","(32, 32, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum","","0"
"0","4242","python3.12","127.0.0.1","gemm","1","7","(32, 32, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","","67,108,864"
"0","4242","python3.12","127.0.0.1","gemm","1","7","(32, 32, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","167,772,160"
"0","4242","python3.12","127.0.0.1","gemm","1","7","(32, 32, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","sm__throughput.avg.pct_of_peak_sustained_elapsed","%","71.52"
"0","4242","python3.12","127.0.0.1","gemm","1","7","(32, 32, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","sm__warps_active.avg.pct_of_peak_sustained_active","%","93.1"
"0","4242","python3.12","127.0.0.1","gemm","1","7","(32, 32, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_shared_ld.sum","inst","0"
"0","4242","python3.12","127.0.0.1","gemm","1","7","(32, 32, 1)","(32, 32, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed_op_shared_st.sum","inst","0"
'''


def test_parse_and_derive():
    raw = counters.parse_csv(SAMPLE, "gemm")
    assert raw["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 167772160.0
    m = counters.derive(raw)
    assert m["sectors_per_request"] == 2.5
    assert m["bank_conflicts_per_request"] == 0.0  # no shared-memory instructions, no conflicts
    assert m["achieved_occupancy"] == 0.931 and m["sm_throughput_pct"] == 71.52
    assert m["dram_bytes_read"] == 12713984.0


def test_real_h100_output():
    """ncu 2025.3.1 on the H100 (tests/insight/data, from tests/insight/run_gpu.sh), 1024^3 GEMMs."""
    from pathlib import Path

    data = Path(__file__).with_name("data")
    naive = counters.derive(counters.parse_csv((data / "ncu-naive-h100.txt").read_text(), "gemm"))
    bad = counters.derive(counters.parse_csv((data / "ncu-uncoalesced-h100.txt").read_text(), "gemm"))
    assert naive["sectors_per_request"] == 2.5 and bad["sectors_per_request"] == 16.5
    assert naive["achieved_occupancy"] > 0.9 and naive["dram_bytes_read"] > 8e6


def test_other_kernels_and_garbage_are_ignored():
    assert counters.parse_csv(SAMPLE, "other") == {}
    assert counters.parse_csv("==ERROR== something failed\n", "gemm") == {}
    assert counters.derive({}) == {"sectors_per_request": None, "bank_conflicts_per_request": None,
                                   "achieved_occupancy": None, "dram_bytes_read": None, "dram_bytes_write": None,
                                   "sm_throughput_pct": None}


def test_absent_ncu_is_a_plain_reason(monkeypatch):
    monkeypatch.setattr(counters, "find_ncu", lambda: None)
    ex = load_exercise("gemm")
    got = counters.collect(ex, b"", "gemm", validate_launch(None, ex))
    assert got == {"available": False, "reason": "NCU_MISSING"}


def test_the_command_line_is_fixed():
    args = counters.ncu_args("gemm")
    assert args[args.index("--kernel-name") + 1] == "gemm" and "--launch-count" in args
    assert all(m in args[1] for m in counters.METRICS)


def test_job_reaches_the_profiled_program(tmp_path, monkeypatch):
    """The plumbing around ncu on CPU: a stand-in executable in ncu's place records the command
    line and the job it was handed, and answers with ncu's CSV shape (the real ncu runs in
    tests/insight/test_gpu.py)."""
    import json
    import stat

    record = tmp_path / "seen.json"
    fake = tmp_path / "ncu"
    fake.write_text("#!/usr/bin/env python3\nimport json, sys\n"
                    f"job = json.load(open(sys.argv[-1]))\njson.dump({{'argv': sys.argv[1:], 'job': job}}, open({str(record)!r}, 'w'))\n"
                    f"sys.stdout.write({SAMPLE!r})\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(counters, "find_ncu", lambda: str(fake))
    ex = load_exercise("gemm")
    plan = validate_launch({"block": [16, 16, 1], "tile": [16, 16], "smem": 0}, ex)
    got = counters.collect(ex, b"\x7fELF-not-really", "gemm", plan, {"M": 64, "N": 32, "K": 8}, sandboxed=False)
    assert got["available"] and got["metrics"]["sectors_per_request"] == 2.5 and got["size"] == {"M": 64, "N": 32, "K": 8}
    seen = json.loads(record.read_text())
    assert seen["argv"][:2] == ["--metrics", ",".join(counters.METRICS)]
    assert "kernels.engine.insight.profile_target" in seen["argv"]
    job = seen["job"]
    assert job["grid"] == [2, 4, 1] and job["block"] == [16, 16, 1] and job["name"] == "gemm"
    assert [p["role"] for p in job["params"]] == ["input", "input", "output", "size", "size", "size"]
    assert job["params"][0]["shape"] == ["M", "K"] and job["params"][3]["shape"] == []
