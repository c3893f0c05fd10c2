"""The benchmark reads wrk's report correctly (the benchmark itself is run by hand)."""
import pytest

from app.bench.web import _to_ms, parse_wrk

WRK_OUTPUT = """Running 10s test @ http://127.0.0.1:8765/ko/lessons/04
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    23.81ms    9.12ms 150.33ms   80.00%
    Req/Sec     2.11k   120.00     2.30k    70.00%
  Latency Distribution
     50%   23.00ms
     75%   27.10ms
     90%   33.00ms
     99%  137.00ms
  21040 requests in 10.00s, 400.10MB read
  Socket errors: connect 0, read 0, write 0, timeout 2
Requests/sec:   2104.00
Transfer/sec:     40.01MB
"""


def test_parse_wrk():
    rps, p50, p99, errors = parse_wrk(WRK_OUTPUT)
    assert (rps, p50, p99) == (2104.0, 23.0, 137.0)
    assert "timeout 2" in errors


@pytest.mark.parametrize("text,ms", [("950.00us", 0.95), ("1.50ms", 1.5), ("1.20s", 1200.0), ("1.00m", 60000.0)])
def test_latency_units(text, ms):
    assert _to_ms(text) == pytest.approx(ms)


def _result(rps: float, p50: float, p99: float, size: int):
    from app.bench.web import WrkResult

    return WrkResult(rps, p50, p99, "", size)


def test_the_report_shows_signed_out_and_signed_in_with_and_without_compression():
    from app.bench.web import BenchRun, report

    run = BenchRun("/ko/lessons/naive-vs-tiled-gemm", baseline=_result(8000, 5.0, 12.0, 60000),
                   plain=_result(6000, 7.0, 13.0, 79000), browser=_result(5700, 7.5, 20.0, 20700),
                   signed=_result(3000, 15.0, 30.0, 80000), signed_browser=_result(2000, 20.0, 60.0, 21000))
    text, ok = report(run, "header")
    assert "ours+br" in text and "signed-in" in text and "signed+br" in text
    assert "browser (signed out): 0.95 of the uncompressed rate (target >= 0.90), p50 7.5 ms against 7.0, " \
           "p99 20.0 ms against 13.0 (target < 50 ms): met" in text
    assert "browser (signed in): 0.67 of the uncompressed rate (target >= 0.90), p50 20.0 ms against 15.0, " \
           "p99 60.0 ms against 30.0 (target < 50 ms): MISSED" in text
    assert ok is False
    run.signed_browser = _result(2900, 16.0, 40.0, 21000)
    assert report(run, "header")[1] is True


def test_the_load_average_is_three_numbers_or_unknown():
    from pathlib import Path

    from app.bench.web import load_average

    value = load_average()
    if not Path("/proc/loadavg").exists():
        assert value == "unknown"
        return
    numbers = [float(part) for part in value.split()]
    assert len(numbers) == 3 and min(numbers) >= 0


def test_a_report_without_the_latency_distribution_says_what_is_missing():
    # wrk without --latency prints no percentile lines: the benchmark stops with that, not an AttributeError
    without = WRK_OUTPUT.replace("     99%  137.00ms\n", "")
    with pytest.raises(ValueError, match="--latency"):
        parse_wrk(without)
