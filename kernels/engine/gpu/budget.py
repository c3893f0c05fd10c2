"""Inside the GPU worker: one job's GPU-time budget, and the rule that stops timing a kernel that is
far slower than the naive reference (``TooSlow``).

Why: the GPU is the one resource a class shares. Timing repeats every kernel a few times per size,
so a correct kernel thousands of times slower than the naive one held the GPU for tens of seconds
and still PASSED. Two rules bound it:

- The ratio rule. The first (untimed) round of each timing size runs the naive reference first and
  the learner's kernel last; when the learner's kernel took more than ``limit`` times the naive
  kernel's time, timing stops there. The default limit (20, ``MKC_TOO_SLOW_RATIO``) is far below
  anything a tier can reward (every tier asks for more than the naive kernel's speed) and far above
  the noise of one untimed launch, so no kernel that could earn anything is cut.
- The wall-time rule. The worker stops timing at ``deadline`` (the parent's job limit less a
  reserve for the last checks), and before launching the learner's kernel at a new size it predicts
  its time (from its ratio at the previous size, or from its time at the largest correctness size
  scaled by the work) and does not launch it when that would not fit. The parent kills the worker
  at the job limit itself: a kernel that hangs still gets TIME_LIMIT.

Imports the standard library only, so the rules are tested without a GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .. import codes
from ..result import Message

MIN_TIMED_ROUNDS = 3  # fewer timed rounds than this at a size give no usable median: not timed
RESERVE_SHARE = 0.2  # of the job limit, kept for the last round's checks and the result
RESERVE_MAX_S = 1.0


class TooSlow(Exception):  # noqa: N818  (an outcome, like JobFailed, not an error of ours)
    """Timing stopped: the learner's kernel is ``ratio`` times slower than the naive kernel."""

    def __init__(self, ratio: float, sizes: dict[str, int] | None = None):
        super().__init__(f"{ratio:.1f}x slower than naive")
        self.ratio, self.sizes = ratio, sizes


def timing_deadline(job_started: float, job_limit_s: float) -> float:
    """When the worker stops timing: the parent's job limit less a reserve for what follows."""
    return job_started + job_limit_s - min(RESERVE_MAX_S, RESERVE_SHARE * job_limit_s)


@dataclass
class SlowGuard:
    """The two rules for one timed size, as ``timing.measure`` applies them."""

    limit: float  # stop when learner time / naive time exceeds this
    deadline: float  # a ``clock`` value: stop timing then
    learner: str = "learner"
    against: str = "naive"
    prior_ratio: float | None = None  # the learner's ratio measured at the previous size
    expected_ms_per_work: float | None = None  # learner ms per unit of work at a correctness size
    work: float = 0.0  # the work at this size (for the prediction from a correctness size)
    probe: dict[str, float] = field(default_factory=dict)  # ms of the first round's untimed launches

    def expected_learner_ms(self, against_ms: float) -> float | None:
        if self.prior_ratio is not None and math.isfinite(self.prior_ratio):
            return self.prior_ratio * against_ms
        if self.expected_ms_per_work is not None and self.work > 0:
            return self.expected_ms_per_work * self.work
        return None

    def before_learner(self, against_ms: float, now: float) -> None:
        """Before the learner's first launch at this size: would it fit in what is left?"""
        expected = self.expected_learner_ms(against_ms)
        if expected is not None and now + expected / 1000.0 > self.deadline:
            raise TooSlow(_ratio(expected, against_ms))

    def after_probe(self) -> float:
        """After the first round: the learner's ratio to the naive kernel; TooSlow past the limit."""
        ratio = _ratio(self.probe.get(self.learner, math.nan), self.probe.get(self.against, math.nan))
        if ratio > self.limit:
            raise TooSlow(ratio)
        return ratio

    def out_of_time(self, now: float) -> bool:
        return now >= self.deadline

    def too_few_rounds(self, rounds: int, ratio: float) -> None:
        if rounds < MIN_TIMED_ROUNDS:
            raise TooSlow(ratio)


def _ratio(learner_ms: float, against_ms: float) -> float:
    if not (against_ms > 0) or not math.isfinite(learner_ms):
        return math.inf if learner_ms > 0 else math.nan
    return learner_ms / against_ms


def too_slow_message(slow: TooSlow, limit: float) -> Message:
    # a ratio that cannot be computed (no naive time) is reported as the limit it passed
    ratio = round(slow.ratio, 1) if math.isfinite(slow.ratio) else limit
    return Message(codes.TOO_SLOW, {"ratio": ratio, "limit": limit, "size": slow.sizes})
