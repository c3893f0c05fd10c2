"""The several-GPUs benchmark (app/bench/submissions_multigpu.py) end to end without a GPU: a real
server, ``python -m app worker --gpu N`` processes grading with the fake GPU on two named fake cards,
steps of 1 and 2 workers, the kill -9 failover, and the report it writes. Its figures are timings and
are not asserted; what it checks about every job (graded once, on its card, no overlap, the verdict
of a direct grade) must hold."""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

from app.bench.submissions_multigpu import compare, overlaps
from app.core.config import PROJECT_ROOT


def test_the_bench_runs_steps_and_a_failover_on_two_fake_gpus(tmp_path):
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "app.bench.submissions_multigpu", "--fake-gpu", "--steps", "1", "2",
                          "--jobs-per-worker", "3", "--learners-per-worker", "2", "--lease-seconds", "3",
                          "--fake-gpu-seconds", "0.3", "--budget", "150", "--out", str(out)],
                         cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=200)
    report = json.loads((out / "multigpu.json").read_text())
    assert run.returncode in (0, 1), run.stdout + run.stderr  # 1: a throughput target missed on a busy box
    assert [s["workers"] for s in report["steps"]] == [1, 2]
    assert [(s["jobs"], s["finished"]) for s in report["steps"]] == [(3, 3), (6, 6)]
    assert report["cards"] == ["fake:0", "fake:1"]
    assert sorted(report["steps"][1]["by_card"]) == ["fake:0", "fake:1"]
    for step in report["steps"]:
        assert {"compile_stage", "wait_lock", "gpu_job", "gpu_held", "service"} <= set(step["phases_ms_median"])
        assert 0 <= step["host"]["cpu_busy_share"] <= 1
        assert len(step["host"]["loadavg_before"]) == 3 and len(step["host"]["loadavg_after"]) == 3
    assert report["steps"][1]["linear_ratio"] is not None and report["steps"][1]["service_ratio"] is not None
    failover = report["failover"]
    assert failover["victim"] is not None and failover["finished"] == failover["jobs"] == 10
    assert failover["victim_after"]["lane"].endswith(":gpu0") and failover["victim_after"]["card"] == "fake:0"
    checks = report["checks"]
    for name in ("every job done", "graded exactly once", "result names its card (jobs that reached a GPU)",
                 "one card per lane", "no overlap on a card", "every card used (2)", "verdicts equal a direct grade",
                 "killed worker's job finished on another"):
        assert checks[name] is True, (name, run.stdout[-3000:])
    assert "2 workers >= 0.9 of linear" in checks and "2 workers: service per job <= 1.10 x one's" in checks
    assert all(row["graded"] == 1 for row in report["rows"].values())
    assert {"worker0.log", "worker1.log", "server.log"} <= {p.name for p in (out / "multigpu-logs").iterdir()}
    assert "1 worker(s): 3/3 jobs" in run.stdout and "2 worker(s): 6/6 jobs" in run.stdout


def _row(card: str, start: int, end: int) -> dict[str, object]:
    base = dt.datetime(2026, 1, 1)
    return {"card": card, "started_at": base + dt.timedelta(seconds=start), "finished_at": base + dt.timedelta(seconds=end)}


def test_overlapping_jobs_on_one_card_are_found_and_on_two_cards_are_not():
    assert overlaps({1: _row("a", 0, 2), 2: _row("a", 1, 3), 3: _row("b", 1, 3)}) == [(1, 2)]
    assert overlaps({1: _row("a", 0, 2), 2: _row("a", 2, 3)}) == []


def test_each_step_is_compared_with_one_worker():
    steps = [{"workers": 1, "jobs_per_minute": 50.0, "service_s_median": 1.0,
              "phases_ms_median": {"gpu_held": 400.0, "compile_stage": 300.0}},
             {"workers": 4, "jobs_per_minute": 180.0, "service_s_median": 1.2,
              "phases_ms_median": {"gpu_held": 410.0, "compile_stage": 500.0}}]
    compare(steps)
    assert steps[1]["linear_ratio"] == 0.9 and steps[1]["service_ratio"] == 1.2 and steps[1]["gpu_held_ratio"] == 1.025
    assert steps[1]["phase_change_ms"] == {"gpu_held": 10.0, "compile_stage": 200.0}
    assert steps[0]["linear_ratio"] == 1.0 and steps[0]["phase_change_ms"] == {"gpu_held": 0.0, "compile_stage": 0.0}
