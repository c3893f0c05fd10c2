"""The presenter: compile logs to clickable lines, timing tables, speedup bar geometry."""
import json

from app.panel.present import parse_compile_log, present, speedup_chart
from tests.panel.support import passed_result, wrong_result

LOG = ('kernel.cu(3): error: expected an expression\n      C[0] = A[0] +* ;\n                     ^\n\n'
       'kernel.cu(12): warning #177-D: variable "x" was declared but never referenced\n    int x;\n        ^')


def view_of(result, state="done"):
    return {"id": 7, "state": state, "state_text": "Done.", "position": None,
            "result": json.loads(result.to_json()) if result else None}


def test_compile_log_lines_keep_the_learners_line_numbers():
    errors = parse_compile_log(LOG)
    assert [(e.line, e.severity) for e in errors] == [(3, "error"), (12, "warning")]
    assert errors[0].text == "expected an expression"
    assert "+* ;" in errors[0].context


def test_passed_result_tables_and_chart():
    p = present(view_of(passed_result()), "en")
    assert p["verdict_label"] == "Passed" and p["gpu"] == "NVIDIA H200"
    assert [g["size"] for g in p["timings"]] == ["M=1024 N=1024 K=1024", "M=2048 N=2048 K=2048"]
    assert [r["kernel"] for r in p["timings"][0]["rows"]] == ["learner", "naive", "tiled", "baseline"]
    chart = p["chart"]
    assert [b.against for b in chart.bars] == ["naive", "tiled", "baseline"]  # largest size only
    assert all(b.size == "M=2048 N=2048 K=2048" for b in chart.bars)
    naive = chart.bars[0]
    assert naive.x_low < naive.x_value < naive.x_high <= chart.width
    assert naive.beats and not chart.bars[2].beats
    assert abs(chart.one_x - chart.width / chart.max_value) < 1e-9
    assert p["xp"] == 40 + 10 + 20


def test_wrong_answer_shows_first_mismatch_in_korean():
    p = present(view_of(wrong_result()), "ko")
    bad = [c for c in p["correctness"] if not c["ok"]]
    assert len(bad) == 1 and "[3, 4]" in bad[0]["detail"] and "4.25" in bad[0]["detail"]
    assert p["verdict_label"] != "Wrong answer"  # translated


def test_queued_state_has_no_verdict_and_explains():
    p = present({"id": 1, "state": "queued", "state_text": "Waiting (position 2).", "position": 2, "result": None}, "en")
    assert p["verdict"] is None and p["pending"] and "one at a time" in p["state_help"]


def test_chart_handles_no_speedups_and_tiny_values():
    assert speedup_chart([], "en") is None
    chart = speedup_chart([{"against": "naive", "size": {"N": 1}, "value": 0.01, "ci_low": 0.005, "ci_high": 0.02}], "en")
    assert chart.max_value >= 1.0 and chart.ticks[0][1] == "0×"
