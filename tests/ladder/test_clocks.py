"""The ladder benchmark records SM clock and power while it times (stable measurements):
ClockWatch against a stand-in NVML, the results file's clocks_held, and the page caption."""
from __future__ import annotations

import sys
import types

import pytest

# The page helpers need the web stack, which the GPU image lacks: skip there, run everywhere else.
caption = pytest.importorskip("app.ladder.present").caption
newest_ladder = pytest.importorskip("app.ladder.results").newest_ladder
from kernels.ladder.bench import build_results  # noqa: E402 - after the skip above, on purpose
from kernels.ladder.clocks import ClockWatch  # noqa: E402


def _fake_nvml(monkeypatch, clocks):
    seq = iter(clocks)
    last = [clocks[0]]

    def clock(_h, _kind):
        last[0] = next(seq, last[0])
        return last[0]

    nv = types.SimpleNamespace(NVML_CLOCK_SM=1, nvmlInit=lambda: None, nvmlDeviceGetHandleByIndex=lambda i: "h",
                               nvmlDeviceGetMaxClockInfo=lambda h, k: 1980, nvmlDeviceGetClockInfo=clock,
                               nvmlDeviceGetPowerUsage=lambda h: 650_000)
    monkeypatch.setitem(sys.modules, "pynvml", nv)


def _watch(clocks) -> dict:
    w = ClockWatch(period_s=0.001)
    for _ in clocks:
        w._sample()
    return w.summary()


def test_steady_clocks_held_and_a_drop_is_flagged(monkeypatch):
    _fake_nvml(monkeypatch, [1980, 1980, 1965, 1980])
    held = _watch([1980, 1980, 1965, 1980])
    assert held["held"] and held["sm_mhz_min"] == 1965 and held["power_w_mean"] == 650.0
    _fake_nvml(monkeypatch, [1980, 1980, 1410, 1400])
    fell = _watch([1980, 1980, 1410, 1400])
    assert fell["held"] is False and fell["sm_mhz_min"] == 1400


def test_no_nvml_means_no_summary(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import fails
    with ClockWatch() as w:
        pass
    assert w.summary() is None


def _child(clocks):
    return {"stem": "05_x", "dtype": "f32", "title": "x", "registers": 64, "static_smem": 0, "dynamic_smem": 0,
            "odd": [], "sizes": [{"n": 1024, "ok": True, "summary": "ok", "worst_ratio": 0.1, "median_ms": 1.0,
                                   "spread_ms": 0.01, "baseline_ms": 0.5, "baseline_spread_ms": 0.01,
                                   "clocks": clocks}]}


def test_results_and_caption_say_whether_clocks_held():
    info = {"name": "NVIDIA H100 80GB HBM3"}
    fell = {"sm_mhz_min": 1400, "sm_mhz_max": 1980, "held": False, "power_w_mean": 600.0}
    doc = build_results(info, [_child(fell)], "2026-11-25")
    assert doc["clocks_held"] is False and doc["entries"][0]["clocks"]["sm_mhz_min"] == 1400
    assert "may be low" in caption(newest_ladder([doc]), "en")
    assert "떨어졌어요" in caption(newest_ladder([doc]), "ko")
    ok = build_results(info, [_child(dict(fell, held=True))], "2026-11-25")
    assert "held" in caption(newest_ladder([ok]), "en")
    old = build_results(info, [_child(None)], "2026-11-25")
    assert old["clocks_held"] is None and "clock" not in caption(newest_ladder([old]), "en").lower()
