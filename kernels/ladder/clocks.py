"""SM clock and power while a kernel is timed, read from NVML (nvidia-ml-py, imported as pynvml).

Lent GPUs throttle under long runs: a rung timed at a lower clock than its neighbours would look
slower than it is. ``ClockWatch`` samples the SM clock and board power in a thread every few
milliseconds while its ``with`` block runs; ``summary()`` says what the clock did and whether it held.
Without NVML (no pynvml, no driver) the summary is None and the benchmark carries on.
"""
from __future__ import annotations

import threading
import time
from typing import Any

HELD_FRACTION = 0.92  # the lowest sample within 8% of the highest in the window, and of the device's max


class ClockWatch:
    def __init__(self, device_index: int = 0, period_s: float = 0.02):
        self.period_s = period_s
        self.samples: list[tuple[int, float]] = []  # (SM MHz, watts)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._nvml: Any = None  # the pynvml module where NVML loads (it ships no type information)
        self._handle: Any = None
        self.max_sm_mhz: int | None = None
        try:
            import pynvml

            pynvml.nvmlInit()
            self._nvml = pynvml
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(device_index)
            self.max_sm_mhz = int(pynvml.nvmlDeviceGetMaxClockInfo(self._handle, pynvml.NVML_CLOCK_SM))
        except Exception:  # no NVML here: summary() is None
            self._nvml = None

    def _sample(self) -> None:
        nv, h = self._nvml, self._handle
        self.samples.append((int(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)),
                             nv.nvmlDeviceGetPowerUsage(h) / 1000.0))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._sample()
            except Exception:
                return
            time.sleep(self.period_s)

    def __enter__(self) -> ClockWatch:
        if self._nvml is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)

    def summary(self) -> dict[str, Any] | None:
        if self._nvml is None or not self.samples:
            return None
        clocks = sorted(c for c, _ in self.samples)
        powers = [p for _, p in self.samples]
        lo, hi = clocks[0], clocks[-1]
        top = max(hi, self.max_sm_mhz or hi)
        return {"sm_mhz_min": lo, "sm_mhz_median": clocks[len(clocks) // 2], "sm_mhz_max": hi,
                "sm_mhz_device_max": self.max_sm_mhz, "power_w_mean": round(sum(powers) / len(powers), 1),
                "power_w_max": round(max(powers), 1), "samples": len(clocks),
                "held": lo >= HELD_FRACTION * hi and clocks[len(clocks) // 2] >= HELD_FRACTION * top}
