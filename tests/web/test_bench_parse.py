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


def test_a_report_without_the_latency_distribution_says_what_is_missing():
    # wrk without --latency prints no percentile lines: the benchmark stops with that, not an AttributeError
    without = WRK_OUTPUT.replace("     99%  137.00ms\n", "")
    with pytest.raises(ValueError, match="--latency"):
        parse_wrk(without)
