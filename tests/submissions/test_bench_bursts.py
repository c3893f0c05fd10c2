"""The class-burst report that both deployments' benchmarks print (app/bench/burst.py): its figures
from submission views, and the cluster benchmark run end to end on a real PostgreSQL with the fake GPU
(tiny numbers; the real figures come from a GPU machine)."""
from __future__ import annotations

import json

from app.bench import submissions_cluster
from app.bench.burst import figures, report_lines


def view(created: str, finished: str | None, started: str | None = None, verdict: str = "PASSED",
         phases: dict[str, float] | None = None) -> dict:
    """A submission as GET /api/submissions/{id} shows it (only the keys the figures read)."""
    result = {"phases": [{"name": k, "ms": v} for k, v in (phases or {}).items()]}
    return {"state": "done" if finished else "compiling", "created_at": f"2026-01-01T00:00:{created}Z",
            "started_at": f"2026-01-01T00:00:{started}Z" if started else None,
            "finished_at": f"2026-01-01T00:00:{finished}Z" if finished else None,
            "claimed_at": None, "dequeue_to_engine_ms": 5.0 if started else None, "verdict": verdict, "result": result}


def test_a_compile_bomb_counts_in_turnaround_but_not_in_service_or_gpu_time():
    jobs = [view("00", "02", "01.5", phases={"validating": 1, "compiling": 2, "checking": 100, "timing": 300}),
            view("00", "04", "03", phases={"validating": 1, "compiling": 2, "checking": 200, "timing": 400}),
            view("00", "21", None, "COMPILE_ERROR", phases={"validating": 1, "compiling": 20000}),
            view("00", None)]  # still compiling at the deadline
    out = figures(jobs, 4)
    assert out["jobs"] == 4 and out["finished"] == 3
    assert out["verdicts"] == ["COMPILE_ERROR", "PASSED"]
    assert out["turnaround_ms"] == {"median": 4000.0, "p95": 21000.0, "max": 21000.0}
    assert out["service_ms"] == {"median": 750.0, "p95": 1000.0, "max": 1000.0}  # the two graded jobs only
    assert out["phases_ms"]["gpu"] == {"median": 400.0, "p95": 600.0}  # the bomb held the GPU for 0: 0, 400, 600
    assert out["phases_ms"]["compiling"] == {"median": 2.0, "p95": 20000.0}
    assert out["seconds_per_job"] == 1.25  # first engine start 01.5 to last finish 04, two jobs


def test_the_report_compares_the_honest_learners_alone_and_beside_hogs_and_bombs():
    plain = figures([view("00", "10", "09.5"), view("00", "20", "19.5")], 2)
    plain.update(users=2, wall_s=20.0, hogs=0, bombs=0)
    hostile = figures([view("00", "30", "29.5"), view("00", "05", None, "COMPILE_ERROR")], 2)
    hostile.update(users=2, wall_s=30.0, hogs=0, bombs=1, honest=figures([view("00", "30", "29.5")], 1),
                   bomb=figures([view("00", "05", None, "COMPILE_ERROR")], 1))
    lines = report_lines("cluster", {"burst": plain, "hostile_burst": hostile})
    assert "[cluster] burst: 2/2 jobs from 2 learners in 20.0 s; turnaround median/p95 15000/20000 ms" in lines[1]
    assert "[cluster] honest p95 turnaround: 20.0 s alone, 30.0 s beside the hogs and bombs (+50%)" in lines
    assert "[cluster] targets: service median 500 ms (<= 500: met); 2 learners p95 20.0 s (<= 60 s: met)" in lines
    assert any(line.startswith("[cluster]   bomb: 1/1 finished, verdicts ['COMPILE_ERROR']") for line in lines)


def test_the_cluster_bench_reports_both_bursts_with_the_fake_gpu(pg_url, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MKC_FAKE_BOMB_SECONDS", "0.5")
    rc = submissions_cluster.main(["--database-url", pg_url, "--burst-learners", "6", "--hogs", "1", "--bombs", "1",
                                   "--gpu-seconds", "0.05", "--budget", "90", "--workdir", str(tmp_path / "work"),
                                   "--out", str(tmp_path / "out")])
    printed = capsys.readouterr().out
    assert rc == 0, printed
    assert "[cluster] burst: 6/6 jobs from 6 learners" in printed
    assert "[cluster] burst with 1 hogs and 1 bombs: 6/6 jobs from 6 learners" in printed
    assert "[cluster]   honest: 4/4 finished, verdicts ['PASSED']" in printed
    assert "[cluster]   bomb: 1/1 finished, verdicts ['COMPILE_ERROR']" in printed
    assert "[cluster] honest p95 turnaround: " in printed
    report = json.loads((tmp_path / "out" / "submissions_cluster.json").read_text())
    assert report["grader"] == "fake GPU" and "error" not in report
    assert set(report["burst"]["phases_ms"]) == {"validating", "compiling", "checking", "timing", "gpu"}
    assert report["hostile_burst"]["hog"]["finished"] == 1


def test_the_cluster_bench_on_the_real_gpu_says_why_no_job_ran_where_there_is_no_such_gpu(pg_url, tmp_path, capsys):
    rc = submissions_cluster.main(["--database-url", pg_url, "--burst-learners", "2", "--real-gpu", "--gpu", "99",
                                   "--budget", "60", "--workdir", str(tmp_path / "work"), "--out", str(tmp_path / "out")])
    printed = capsys.readouterr().out
    assert rc == 1, printed
    assert "[cluster] stopped early: the worker exited with status 3: error: no usable GPU 99" in printed
    report = json.loads((tmp_path / "out" / "submissions_cluster.json").read_text())
    assert report["grader"] == "real GPU" and "burst" not in report
