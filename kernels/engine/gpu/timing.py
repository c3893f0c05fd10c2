"""Interleaved GPU timing with CUDA events (contract C): ``measure(launches, ...)``.

Why this shape:
- Interleaved round by round, in a fresh random order each round: clock and thermal drift hit
  every kernel alike, so ratios (speedups) stay stable even when absolute times wander.
- An L2 flush (a memset of twice the L2 size) before each timed call: every kernel starts from
  cold caches, as it would inside a larger program, and no kernel profits from the previous one.
- Repeat until the relative standard error of every median is below ``target_rse`` (after
  ``min_rounds``) or the time budget ends: short kernels get many samples, long ones few.
- Rounds are paired (all kernels run in each round), so speedup confidence intervals come from a
  paired bootstrap over rounds.

Imports numpy and cupy only.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .budget import SlowGuard


@dataclass
class TimingStats:
    name: str
    samples_ms: list[float] = field(default_factory=list)  # one per timed round, in round order

    @property
    def n(self) -> int:
        return len(self.samples_ms)

    @property
    def median_ms(self) -> float:
        return float(np.median(self.samples_ms)) if self.samples_ms else float("nan")

    @property
    def spread_ms(self) -> float:
        """Half the interquartile range: robust to the odd slow outlier."""
        if self.n < 2:
            return 0.0
        q1, q3 = np.percentile(self.samples_ms, [25, 75])
        return float(q3 - q1) / 2.0

    @property
    def rse(self) -> float:
        """Relative standard error of the median: 1.2533 * sigma / sqrt(n) / median, with sigma
        estimated from the interquartile range (IQR / 1.349), so a few slow outliers (a clock
        change, another process) do not keep the loop running."""
        if self.n < 4:
            return float("inf")
        s = np.asarray(self.samples_ms)
        q1, q3 = np.percentile(s, [25, 75])
        sigma = (q3 - q1) / 1.349
        return float(1.2533 * sigma / math.sqrt(s.size) / max(np.median(s), 1e-12))

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "median_ms": self.median_ms, "spread_ms": self.spread_ms,
                "rse": self.rse, "samples": self.n}


class L2Flusher:
    """Evicts the L2 cache by writing a buffer twice its size (cudaMemsetAsync: no kernel to
    compile, nothing learner code could read back)."""

    def __init__(self, factor: int = 2):
        import cupy

        dev = cupy.cuda.Device()
        try:
            l2 = int(cupy.cuda.runtime.deviceGetAttribute(89, dev.id))  # cudaDevAttrL2CacheSize
        except Exception:  # pragma: no cover - very old runtimes
            l2 = 64 << 20
        self.nbytes = max(l2, 8 << 20) * factor
        self.buf = cupy.empty(self.nbytes, dtype=cupy.uint8)
        self._value = 0

    def __call__(self, stream: Any = None) -> None:  # a cupy.cuda.Stream (untyped)
        import cupy

        self._value ^= 1  # alternate the value so the writes are never elided
        s = stream if stream is not None else cupy.cuda.get_current_stream()
        cupy.cuda.runtime.memsetAsync(self.buf.data.ptr, self._value, self.nbytes, s.ptr)


def measure(launches: dict[str, Callable[[], None]], *, flush_l2: bool = True,
            max_seconds: float = 2.0, target_rse: float = 0.005, min_rounds: int = 10,
            max_rounds: int = 300, warmup_rounds: int = 2,
            before_round: Callable[[int], None] | None = None,
            after_round: Callable[[int], None] | None = None,
            flusher: L2Flusher | None = None, seed: int | None = None,
            before_window: dict[str, Callable[[], None]] | None = None,
            guard: SlowGuard | None = None,
            clock: Callable[[], float] = time.perf_counter) -> dict[str, TimingStats]:
    """Time each callable (one kernel launch on the current stream) interleaved round by round.

    before_round(i) / after_round(i) run outside the timed regions (i < 0 for warm-up rounds):
    the grader uses them to refresh inputs and to re-check outputs of timed runs.
    before_window[name]() runs after the L2 flush and before that kernel's start event (the
    ladder queues a GPU-side wait there, so a call with a long host dispatch is timed without it).
    ``guard`` (budget.py) stops a kernel far slower than the naive one after the first warm-up
    round, and timing at its deadline: raises ``budget.TooSlow``.
    Returns {name: TimingStats}; every stats object has the same number of samples (paired).
    """
    import cupy

    names = list(launches)
    if not names:
        return {}
    rng = np.random.default_rng(seed)
    stream = cupy.cuda.get_current_stream()
    if flush_l2 and flusher is None:
        flusher = L2Flusher()
    stats = {n: TimingStats(n) for n in names}
    events = {n: (cupy.cuda.Event(), cupy.cuda.Event()) for n in names}
    t_end = clock() + max_seconds

    for w in range(warmup_rounds):
        if before_round:
            before_round(-1 - w)
        if w == 0 and guard is not None:
            _probe_round(launches, events, stream, guard, clock)
        else:
            for n in names:
                launches[n]()
        stream.synchronize()
        if after_round:
            after_round(-1 - w)
        if w == 0 and guard is not None:
            guard.after_probe()

    if guard is not None and guard.out_of_time(clock()):
        guard.too_few_rounds(0, guard.after_probe())
    r = 0
    while r < max_rounds:
        if before_round:
            before_round(r)
        order = list(rng.permutation(len(names)))
        for k in order:
            n = names[k]
            if flusher is not None:
                flusher(stream)
            if before_window and n in before_window:
                before_window[n]()
            _between_events(launches[n], events[n], stream)
        stream.synchronize()
        for n in names:
            stats[n].samples_ms.append(_elapsed_ms(events[n]))
        if after_round:
            after_round(r)
        r += 1
        if r >= min_rounds and all_stable(stats, target_rse):
            break
        now = clock()
        if now >= t_end and r >= min(min_rounds, 5):
            break
        if guard is not None and guard.out_of_time(now):
            break
    if guard is not None:
        learner, against = stats.get(guard.learner), stats.get(guard.against)
        ratio = (learner.median_ms / against.median_ms if learner and against and learner.n and against.median_ms > 0
                 else guard.after_probe())
        guard.too_few_rounds(r, ratio)
    return stats


def all_stable(stats: dict[str, TimingStats], target_rse: float) -> bool:
    """Every median's relative standard error (``TimingStats.rse``) is at most ``target_rse``: one
    numpy call over all kernels (paired rounds: equal sample counts), since it runs after every
    round and per-kernel percentiles cost as much as a short kernel's round."""
    if not stats:
        return True
    samples = np.asarray([s.samples_ms for s in stats.values()], dtype=np.float64)
    n = samples.shape[1]
    if n < 4:
        return False
    q1, median, q3 = np.percentile(samples, [25, 50, 75], axis=1)
    rse = 1.2533 * ((q3 - q1) / 1.349) / math.sqrt(n) / np.maximum(median, 1e-12)
    return bool(np.all(rse <= target_rse))


def _probe_round(launches: dict[str, Callable[[], None]], events: dict[str, tuple[Any, Any]], stream: Any,
                 guard: SlowGuard, clock: Callable[[], float]) -> None:
    """The first warm-up round with each launch between events: the naive kernel first, the
    learner's last (not launched at all when its predicted time would not fit the deadline)."""
    order = [guard.against] + [n for n in launches if n not in (guard.against, guard.learner)] + [guard.learner]
    order = [n for n in order if n in launches]
    for n in order:
        if n == guard.learner and guard.against in launches:
            stream.synchronize()
            guard.probe[guard.against] = _elapsed_ms(events[guard.against])
            guard.before_learner(guard.probe[guard.against], clock())
        _between_events(launches[n], events[n], stream)
    stream.synchronize()
    for n in order:
        guard.probe[n] = _elapsed_ms(events[n])


def _between_events(launch: Callable[[], None], pair: tuple[Any, Any], stream: Any) -> None:
    start, stop = pair
    start.record(stream)
    launch()
    stop.record(stream)


def _elapsed_ms(pair: tuple[Any, Any]) -> float:
    import cupy

    return float(cupy.cuda.get_elapsed_time(*pair))


def speedup(against: TimingStats, learner: TimingStats, *, confidence: float = 0.95,
            n_boot: int = 1000, seed: int = 0) -> tuple[float, float, float]:
    """median(against) / median(learner) with a paired bootstrap confidence interval."""
    a = np.asarray(against.samples_ms, dtype=np.float64)
    b = np.asarray(learner.samples_ms, dtype=np.float64)
    n = min(a.size, b.size)
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    a, b = a[:n], b[:n]
    value = float(np.median(a) / np.median(b))
    if n < 3:
        return value, value, value
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    ratios = np.median(a[idx], axis=1) / np.median(b[idx], axis=1)
    lo, hi = np.percentile(ratios, [50 * (1 - confidence), 100 - 50 * (1 - confidence)])
    return value, float(lo), float(hi)
