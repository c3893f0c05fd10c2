"""The host's load over a stretch of a benchmark: load average before, after and at its highest,
and the share of the host's CPU time that was busy (Linux ``/proc/stat``; elsewhere the CPU share is
None). Several GPU workers on one host share its CPUs (compiles, GPU workers' imports, the database):
a per-job slowdown with more workers is read against these figures."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

STAT = Path("/proc/stat")


def cpu_times() -> tuple[int, int] | None:
    """(busy, total) jiffies of all CPUs since boot; None where /proc/stat is missing."""
    try:
        first = STAT.read_text().splitlines()[0].split()
    except OSError:
        return None
    values = [int(v) for v in first[1:9]]  # user nice system idle iowait irq softirq steal
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


class HostLoad:
    """``with HostLoad() as load: ...`` then ``load.report()``; samples the load average every ``every`` s."""

    def __init__(self, every: float = 1.0):
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self.before: tuple[float, ...] = ()
        self.after: tuple[float, ...] = ()
        self.peak = 0.0
        self._cpu_before: tuple[int, int] | None = None
        self._cpu_after: tuple[int, int] | None = None

    def __enter__(self) -> HostLoad:
        self.before = os.getloadavg()
        self.peak = self.before[0]
        self._cpu_before = cpu_times()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._cpu_after = cpu_times()
        self.after = os.getloadavg()
        self.peak = max(self.peak, self.after[0])

    def _sample(self) -> None:
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, os.getloadavg()[0])

    def report(self) -> dict[str, Any]:
        share = None
        if self._cpu_before and self._cpu_after and self._cpu_after[1] > self._cpu_before[1]:
            share = round((self._cpu_after[0] - self._cpu_before[0]) / (self._cpu_after[1] - self._cpu_before[1]), 3)
        return {"cpus": os.cpu_count(), "loadavg_before": [round(x, 2) for x in self.before],
                "loadavg_after": [round(x, 2) for x in self.after], "loadavg_1m_max": round(self.peak, 2),
                "cpu_busy_share": share}
